// Right way: unmap, release the range and free the allocation, then destroy the context.
// Why it compiles: once the mapping, the range and the allocation are gone, nothing borrows the context.
// Enforced by: `Reservation<'ctx, 'id>` and `PhysicalMem<'ctx, 'id>` borrow the `Context`.
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
    ctx.memset(&mut mapping.view_mut::<u8>(), 3)?;
    let mut back = vec![0u8; 8];
    ctx.copy(&mapping.view::<u8>().split_at(8)?.0, &mut back)?;
    assert_eq!(back, [3u8; 8]);
    mapping.unmap()?;
    range.release()?;
    phys.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
