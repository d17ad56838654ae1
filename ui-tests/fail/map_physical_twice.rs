// Misuse: map one physical allocation twice at the same time (two writable names for the same device bytes).
// Why it must not compile: two `DeviceViewMut`s of the same bytes could be written by two lanes at once, a data race the scopes cannot see.
// Enforced by: `Reservation::map` takes `&'p mut PhysicalMem`: an allocation has one mapping at a time.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let gran = ctx.granularity()?;
    let range = ctx.reserve(gran.granules(2)?)?;
    let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
    let low = range.map(0, &mut phys)?;
    let high = range.map(1, &mut phys)?;
    drop((low, high));
    Ok(())
}
