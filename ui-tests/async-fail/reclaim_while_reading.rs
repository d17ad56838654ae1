// Misuse: reclaim a shared buffer while a `Reading` of it is still usable.
// Why it must not compile: the `Reading` could queue another read after the join that `reclaim` made, racing with the writes that follow it.
// Enforced by: `Reading` borrows the `Shared`; `Lane::reclaim` takes it by value (E0505).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (p, r) = (ctx.create_stream()?, ctx.create_stream()?);
    let input = ctx.alloc_host_from(&[1u8; 64])?;
    let mut dev = ctx.alloc::<u8>(64)?;
    let (mut o1, mut o2) = (ctx.alloc_host_zeroed::<u8>(64)?, ctx.alloc_host_zeroed::<u8>(64)?);
    ctx.scope(|s| {
        make_guard!(gp);
        make_guard!(gr);
        let (lp, lr) = (s.lane(&p, gp), s.lane(&r, gr));
        let shared = lp.share(lp.copy(&input, &mut dev)?)?;
        let reading = lr.read(&shared)?;
        let _ = lr.copy(&reading, &mut o1)?;
        let dev = lp.reclaim(shared)?;
        let _ = lp.memset(dev, 0)?;
        let _ = lr.copy(&reading, &mut o2)?; // after the join
        Ok(())
    })?;
    Ok(())
}
