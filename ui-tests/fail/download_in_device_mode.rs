// Misuse: call the host-run-mode-only `download` on a context of a device-run-mode (`ACL_DEVICE`) runtime.
// Why it must not compile: when the application runs on the device there is no host side: a device-to-host copy kind is wrong there.
// Enforced by: `Context::download` requires `M: HostRunMode`, implemented only by `HostMode`; this context is `Context<'_, '_, DeviceMode>`.
use aclrt::{Acl, DeviceMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let on_device = ctx.alloc_zeroed::<f32>(2)?;
    let mut out = vec![0.0f32; 2];
    ctx.download(&on_device, &mut out)?;
    Ok(())
}
