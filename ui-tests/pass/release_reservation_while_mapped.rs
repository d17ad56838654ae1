// Right way: unmap first, then release the range and free the allocation.
// Why it compiles: once the mapping is gone, nothing borrows the range or the allocation.
// Enforced by: `Mapping<'r, 'p, 'id>` borrows its `Reservation` and its `PhysicalMem`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let gran = ctx.granularity()?;
    let range = ctx.reserve(gran.granules(1)?)?;
    let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
    let mut mapping = range.map(0, &mut phys)?;
    ctx.memset(&mut mapping.view_mut::<u8>(), 7)?;
    let mut back = vec![0u8; 16];
    ctx.copy(&mapping.view::<u8>().split_at(16)?.0, &mut back)?;
    assert_eq!(back, [7u8; 16]);
    mapping.unmap()?;
    range.release()?;
    phys.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
