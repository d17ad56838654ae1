// Misuse: use the `Reading` one lane got from `Lane::read` as a source on another lane.
// Why it must not compile: only the lane that called `read` waited for the producer; the other lane could read before the write is done.
// Enforced by: `Reading` carries the reading lane's brand `'sid`; `AsyncSource` for `&Reading` needs the brand of the lane it is used on.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (p, r, q) = (ctx.create_stream()?, ctx.create_stream()?, ctx.create_stream()?);
    let input = ctx.alloc_host_from(&[1u8; 64])?;
    let mut dev = ctx.alloc::<u8>(64)?;
    let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
    ctx.scope(|s| {
        make_guard!(gp);
        make_guard!(gr);
        make_guard!(gq);
        let (lp, lr, lq) = (s.lane(&p, gp), s.lane(&r, gr), s.lane(&q, gq));
        let shared = lp.share(lp.copy(&input, &mut dev)?)?;
        let reading = lr.read(&shared)?;
        let _ = lq.copy(&reading, &mut out)?; // lane q never waited
        Ok(())
    })?;
    Ok(())
}
