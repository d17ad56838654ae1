// Right way: free device memory, then destroy its context.
// Why it compiles: `DeviceBuffer::free(self)` ends the buffer's borrow of the context.
// Enforced by: `DeviceBuffer<'ctx, 'id, T>` borrows its `Context` for `'ctx`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buffer = ctx.alloc_from(&[7u32; 8])?;
    let mut back = [0u32; 8];
    ctx.copy(&buffer, &mut back)?;
    assert_eq!(back, [7; 8]);
    buffer.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
