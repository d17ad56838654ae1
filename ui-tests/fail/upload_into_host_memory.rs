// Misuse: a host-to-device copy (`upload`) whose destination is host (pinned) memory.
// Why it must not compile: `ACL_MEMCPY_HOST_TO_DEVICE` with a host destination writes host memory as if it were device memory.
// Enforced by: `Context::upload` requires the destination to implement `DeviceMemory`, which `HostBuffer` does not.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut pinned = ctx.alloc_host_zeroed::<f32>(4)?;
    ctx.upload(&[1.0f32, 2.0, 3.0, 4.0], &mut pinned)?;
    Ok(())
}
