// Right way: free device memory before resetting the device.
// Why it compiles: `DeviceBuffer::free(self)` ends the buffer's borrow of the context (and so of the device).
// Enforced by: `DeviceBuffer<'ctx, 'id, T>` borrows its context, which borrows the `Device`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let buffer = ctx.alloc_from(&[0.5f32; 16])?;
    let mut back = vec![0.0f32; 16];
    ctx.download(&buffer, &mut back)?;
    assert_eq!(back, [0.5; 16]);
    buffer.free()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
