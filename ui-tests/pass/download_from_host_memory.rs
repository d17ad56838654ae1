// Right way: copy pinned host memory to pageable host memory with the generic `copy` (host-to-host).
// Why it compiles: `copy` derives `ACL_MEMCPY_HOST_TO_HOST` from the two host types.
// Enforced by: `Context::copy` versus `download` (`DeviceMemory` source only).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let pinned = ctx.alloc_host_from(&[1.0f32, 2.0, 3.0, 4.0])?;
    let mut out = vec![0.0f32; 4];
    ctx.copy(&pinned, &mut out)?;
    assert_eq!(out, [1.0, 2.0, 3.0, 4.0]);
    pinned.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
