// Misuse: reset a device while pinned host memory (`aclrtMallocHost`) of one of its contexts is still allocated.
// Why it must not compile: the pinned allocation belongs to the device's context; freeing or reading it after the reset is invalid.
// Enforced by: `HostBuffer<'ctx, 'id, T, M>` borrows its context, which borrows the `Device`; `Device::reset(self)` needs to move it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let pinned = ctx.alloc_host_zeroed::<f32>(16)?;
    device.reset()?;
    pinned.free()?;
    Ok(())
}
