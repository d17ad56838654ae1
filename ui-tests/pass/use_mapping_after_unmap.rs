// Right way: use the mapping's views before unmapping it.
// Why it compiles: the mapping is still alive at each use.
// Enforced by: `Mapping::unmap(self)` consumes the mapping.
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
    ctx.memset(&mut mapping.view_mut::<u8>(), 0)?;
    mapping.unmap()?;
    drop(phys);
    drop(range);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
