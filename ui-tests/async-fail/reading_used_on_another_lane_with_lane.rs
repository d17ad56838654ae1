// Misuse: with closure-branded lanes, use the `Reading` one lane got from `Lane::read` as a source on another lane.
// Why it must not compile: only the lane that called `read` waited for the producer; the other lane could read before the write is done.
// Enforced by: `Reading` carries the reading lane's brand `'sid`; with `Scope::with_lane` the error points at the call that used it on the other lane (E0521).
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
        s.with_lane(&p, |lp| {
            let shared = lp.share(lp.copy(&input, &mut dev)?)?;
            s.with_lane(&r, |lr| {
                let reading = lr.read(&shared)?;
                s.with_lane(&q, |lq| {
                    let _ = lq.copy(&reading, &mut out)?; // lane q never waited
                    Ok(())
                })
            })
        })
    })?;
    Ok(())
}
