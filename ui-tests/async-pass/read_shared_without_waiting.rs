// Right way: call `Lane::read` on the reading lane first.
// Why it compiles: `Lane::read` makes the lane wait for the producer's event and returns a `Reading` of that lane.
// Enforced by: `AsyncSource` is implemented for `&Reading` of the same lane.
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
        ctx.scope(|s| {
            make_guard!(gp);
            make_guard!(gr);
            let (lp, lr) = (s.lane(&p, gp), s.lane(&r, gr));
            let shared = lp.share(lp.copy(&input, &mut dev)?)?;
            let out = lr.copy(&lr.read(&shared)?, &mut out)?.wait()?;
            assert!(out.iter().all(|v| v == 1));
            Ok(())
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
