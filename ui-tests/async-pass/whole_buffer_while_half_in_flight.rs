// Right way: use the halves (disjoint), or the whole buffer, but not both at once.
// Why it compiles: the two halves of `split_at_mut` do not overlap; each is borrowed by its own work.
// Enforced by: `split_at_mut` returns two `DeviceViewMut`s, each an `AsyncDest` by value.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let mut dev = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s| {
            make_guard!(ga);
            make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            let (lo, hi) = dev.split_at_mut(32)?;
            let (out_lo, out_hi) = out.split_at_mut(32);
            let lo = la.memset(lo, 1)?;
            let hi = lb.memset(hi, 2)?;
            let _ = la.copy(&lo, out_lo)?;
            let _ = lb.copy(&hi, out_hi)?;
            Ok(())
        })?;
        assert!(out[..32].iter().all(|v| v == 1) && out[32..].iter().all(|v| v == 2));
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
