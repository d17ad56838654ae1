// Misuse: read a shared buffer on a lane without `Lane::read`.
// Why it must not compile: the lane has not waited for the producer: the read could run before the producer's write is done.
// Enforced by: `&Shared` is not an `AsyncSource`; `Lane::read` queues the wait and returns the `Reading` that is.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (p, r) = (ctx.create_stream()?, ctx.create_stream()?);
    let input = ctx.alloc_host_from(&[1u8; 64])?;
    let mut dev = ctx.alloc::<u8>(64)?;
    let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
    ctx.scope(|s| {
        make_guard!(gp);
        make_guard!(gr);
        let (lp, lr) = (s.lane(&p, gp), s.lane(&r, gr));
        let shared = lp.share(lp.copy(&input, &mut dev)?)?;
        let _ = lr.copy(&shared, &mut out)?; // no wait for the producer
        Ok(())
    })?;
    Ok(())
}
