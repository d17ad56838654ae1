// Right way: measure each context's sizes in its own granularity.
// Why it compiles: `Granules<'b>` comes from `ctx_b.granularity()`.
// Enforced by: the invariant brand `'id` on `Granularity<'id>` and `Granules<'id>`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device.create_context(guard_a)?;
    let ctx_b = device.create_context(guard_b)?;
    let size_b = ctx_b.granularity()?.granules(1)?;
    let range = ctx_b.reserve(size_b)?;
    assert_eq!(range.size().count(), 1);
    range.release()?;
    ctx_b.destroy()?;
    ctx_a.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
