// Right way: copy device memory to pinned host memory, then dereference the `HostBuffer`.
// Why it compiles: `HostBuffer` implements `Deref<Target = [T]>`; it is host memory.
// Enforced by: `DeviceBuffer` (no `Deref`) versus `HostBuffer` (`Deref<Target = [T]>`).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buffer = ctx.alloc_zeroed::<f32>(4)?;
    let mut pinned = ctx.alloc_host_zeroed::<f32>(4)?;
    pinned.fill(5.0);
    ctx.copy(&buffer, &mut pinned)?;
    let values: &[f32] = &pinned;
    assert_eq!(values, [0.0; 4]);
    pinned.free()?;
    buffer.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
