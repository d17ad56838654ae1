// Misuse: a device-to-device copy (`copy_on_device`) whose source is a pageable host slice.
// Why it must not compile: `ACL_MEMCPY_DEVICE_TO_DEVICE` with a host source reads host memory as if it were device memory.
// Enforced by: `Context::copy_on_device` requires both sides to implement `DeviceMemory`, which `[T; N]` does not.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut target = ctx.alloc::<u16>(3)?;
    ctx.copy_on_device(&[1u16, 2, 3], &mut target)?;
    Ok(())
}
