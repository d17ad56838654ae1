// Misuse: keep a view of mapped memory after its mapping is unmapped.
// Why it must not compile: the view would name addresses that no longer map device memory.
// Enforced by: `Mapping::view` returns `DeviceView<'_, 'id, T>` borrowing the mapping; `Mapping::unmap(self)` needs it unborrowed.
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
    let view = mapping.view::<u32>();
    mapping.unmap()?;
    let mut back = vec![0u32; view.len()];
    ctx.copy(&view, &mut back)?;
    Ok(())
}
