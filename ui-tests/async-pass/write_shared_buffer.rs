// Right way: reclaim a shared buffer on one lane before writing it.
// Why it compiles: `Lane::reclaim` makes the lane wait for the producer and for every reader, and gives back an `InFlight` of that lane.
// Enforced by: `Lane::reclaim` returns the `InFlight` that `Lane::memset` accepts.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let (p, r) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[1u8; 64])?;
        let mut dev = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        let mut after = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s| {
            make_guard!(gp);
            make_guard!(gr);
            let (lp, lr) = (s.lane(&p, gp), s.lane(&r, gr));
            let shared = lp.share(lp.copy(&input, &mut dev)?)?;
            let _ = lr.copy(&lr.read(&shared)?, &mut out)?;
            let dev = lp.reclaim(shared)?; // after lane r's read
            let dev = lp.memset(dev, 0)?;
            let _ = lp.copy(&dev, &mut after)?;
            Ok(())
        })?;
        assert!(out.iter().all(|v| v == 1));
        assert!(after.iter().all(|v| v == 0));
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
