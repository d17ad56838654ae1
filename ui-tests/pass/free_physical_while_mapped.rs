// Right way: drop (unmap) the mapping, then free the physical allocation.
// Why it compiles: the mutable borrow of the allocation ends with the mapping.
// Enforced by: `Reservation::map` borrows the `PhysicalMem` mutably for the mapping's `'p`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let gran = ctx.granularity()?;
    let range = ctx.reserve(gran.granules(1)?)?;
    let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
    let mapping = range.map(0, &mut phys)?;
    assert_eq!(mapping.bytes(), gran.bytes());
    drop(mapping);
    phys.free()?;
    range.release()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
