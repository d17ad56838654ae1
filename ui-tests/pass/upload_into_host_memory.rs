// Right way: fill pinned host memory from a host slice with the generic `copy` (host-to-host).
// Why it compiles: `copy` accepts any pair of memory types and derives `ACL_MEMCPY_HOST_TO_HOST` from them.
// Enforced by: `Context::copy` (kind from the `Memory::Place` of both sides) versus `upload` (`DeviceMemory` destination only).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut pinned = ctx.alloc_host_zeroed::<f32>(4)?;
    ctx.copy(&[1.0f32, 2.0, 3.0, 4.0], &mut pinned)?;
    assert_eq!(*pinned, [1.0, 2.0, 3.0, 4.0]);
    pinned.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
