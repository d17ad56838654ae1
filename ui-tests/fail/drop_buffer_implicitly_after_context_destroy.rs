// Misuse: destroy a context while a buffer of it is still alive and only dropped implicitly, later, at the end of the block.
// Why it must not compile: the implicit drop frees the buffer (`aclrtFree`) after its context is gone.
// Enforced by: the raw allocation inside `DeviceBuffer<'ctx, 'id, T>` has a `Drop` impl that uses `'ctx`, so the borrow of the `Context` lasts until the drop.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let _scratch = ctx.alloc::<u32>(8)?;
    ctx.destroy()?;
    Ok(())
}
