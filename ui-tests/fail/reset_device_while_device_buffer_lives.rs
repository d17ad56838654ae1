// Misuse: reset a device while device memory (`aclrtMalloc`) of one of its contexts is still allocated.
// Why it must not compile: resetting the device releases its memory; the buffer would then be freed (or read) after the device is gone.
// Enforced by: `DeviceBuffer<'ctx, 'id, T>` borrows its context, which borrows the `Device`; `Device::reset(self)` needs to move it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let buffer = ctx.alloc::<f32>(16)?;
    device.reset()?;
    buffer.free()?;
    Ok(())
}
