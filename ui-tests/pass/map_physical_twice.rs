// Right way: map two allocations side by side in one range (or one allocation after the other).
// Why it compiles: each allocation is borrowed mutably by one mapping only; the range is shared.
// Enforced by: `Reservation::map(&self, at, &mut PhysicalMem)`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let gran = ctx.granularity()?;
    let range = ctx.reserve(gran.granules(2)?)?;
    let mut a = ctx.alloc_physical(gran.granules(1)?)?;
    let mut b = ctx.alloc_physical(gran.granules(1)?)?;
    let low = range.map(0, &mut a)?;
    let high = range.map(1, &mut b)?;
    assert_eq!(
        high.as_device_ptr() as usize - low.as_device_ptr() as usize,
        gran.bytes()
    );
    drop((low, high));
    drop((a, b, range));
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
