// Right way: download device memory into pinned host memory (`HostBuffer`), which does have `as_slice`.
// Why it compiles: `HostBuffer` is host memory the CPU may read.
// Enforced by: `DeviceBuffer` (no slice view) versus `HostBuffer` (`as_slice`, `Deref<Target = [T]>`).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buffer = ctx.alloc_zeroed::<f32>(4)?;
    let mut pinned = ctx.alloc_host_from(&[9.0f32; 4])?;
    ctx.download(&buffer, &mut pinned)?;
    let values: &[f32] = pinned.as_slice();
    assert_eq!(values, [0.0; 4]);
    pinned.free()?;
    buffer.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
