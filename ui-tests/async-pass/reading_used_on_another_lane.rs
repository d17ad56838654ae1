// Right way: each lane that reads a shared buffer calls `Lane::read` itself.
// Why it compiles: each `Reading` is used on the lane that made it.
// Enforced by: the `'sid` brand of `Reading` matches the lane.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let (p, r, q) = (ctx.create_stream()?, ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[1u8; 64])?;
        let mut dev = ctx.alloc::<u8>(64)?;
        let (mut o1, mut o2) = (ctx.alloc_host_zeroed::<u8>(64)?, ctx.alloc_host_zeroed::<u8>(64)?);
        ctx.scope(|s| {
            make_guard!(gp);
            make_guard!(gr);
            make_guard!(gq);
            let (lp, lr, lq) = (s.lane(&p, gp), s.lane(&r, gr), s.lane(&q, gq));
            let shared = lp.share(lp.copy(&input, &mut dev)?)?;
            let _ = lr.copy(&lr.read(&shared)?, &mut o1)?;
            let _ = lq.copy(&lq.read(&shared)?, &mut o2)?;
            Ok(())
        })?;
        assert_eq!(o1.to_vec(), o2.to_vec());
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
