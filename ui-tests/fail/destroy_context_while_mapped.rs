// Misuse: destroy a context (`aclrtDestroyContext`) while a mapping of its virtual memory is still used.
// Why it must not compile: the mapping's range and allocation are the context's; once it is destroyed, its views would name device memory of a context that no longer exists.
// Enforced by: `Reservation<'ctx, 'id>` and `PhysicalMem<'ctx, 'id>` borrow the `Context`, and `Mapping` borrows both; `Context::destroy(self)` needs it unborrowed.
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
    ctx.destroy()?;
    let _view = mapping.view_mut::<u8>();
    Ok(())
}
