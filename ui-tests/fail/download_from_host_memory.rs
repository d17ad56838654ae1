// Misuse: a device-to-host copy (`download`) whose source is host (pinned) memory.
// Why it must not compile: `ACL_MEMCPY_DEVICE_TO_HOST` with a host source reads host memory as if it were device memory.
// Enforced by: `Context::download` requires the source to implement `DeviceMemory`, which `HostBuffer` does not.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let pinned = ctx.alloc_host_from(&[1.0f32, 2.0, 3.0, 4.0])?;
    let mut out = vec![0.0f32; 4];
    ctx.download(&pinned, &mut out)?;
    Ok(())
}
