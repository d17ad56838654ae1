// Misuse: write a buffer while it is shared for reading by several lanes (`Lane::share`).
// Why it must not compile: other lanes may be reading it at that very moment; a write would race with their reads.
// Enforced by: `Shared` is not an `AsyncDest`; only `Lane::reclaim` turns it back into a writable `InFlight`, after every reader.
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
        let _ = lr.copy(&lr.read(&shared)?, &mut out)?;
        let _ = lp.memset(shared, 0)?; // lane r may still be reading it
        Ok(())
    })?;
    Ok(())
}
