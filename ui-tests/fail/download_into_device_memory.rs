// Misuse: a device-to-host copy (`download`) whose destination is device memory.
// Why it must not compile: `ACL_MEMCPY_DEVICE_TO_HOST` with a device destination writes device memory as if it were host memory.
// Enforced by: `Context::download` requires the destination to implement `HostMemory`, which `DeviceBuffer` does not.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let source = ctx.alloc_zeroed::<f32>(4)?;
    let mut target = ctx.alloc::<f32>(4)?;
    ctx.download(&source, &mut target)?;
    Ok(())
}
