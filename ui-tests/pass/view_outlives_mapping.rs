// Right way: finish with the views, then unmap.
// Why it compiles: the view's borrow of the mapping ends before `unmap`.
// Enforced by: `Mapping::view` returns `DeviceView<'_, 'id, T>` borrowing the mapping.
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
    ctx.memset(&mut mapping.view_mut::<u8>(), 1)?;
    let view = mapping.view::<u32>();
    let mut back = vec![0u32; view.len()];
    ctx.copy(&view, &mut back)?;
    assert!(back.iter().all(|&v| v == 0x0101_0101));
    mapping.unmap()?;
    drop((phys, range));
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
