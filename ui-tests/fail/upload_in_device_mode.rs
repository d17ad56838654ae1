// Misuse: call the host-run-mode-only `upload` on a context of a device-run-mode (`ACL_DEVICE`) runtime.
// Why it must not compile: when the application runs on the device there is no host side: "host" memory is device memory and a host-to-device copy kind is wrong.
// Enforced by: `Context::upload` requires `M: HostRunMode`, implemented only by `HostMode`; this context is `Context<'_, '_, DeviceMode>`.
use aclrt::{Acl, DeviceMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut on_device = ctx.alloc::<f32>(2)?;
    ctx.upload(&[1.0f32, 2.0], &mut on_device)?;
    Ok(())
}
