// Right way: initialise pinned host memory (here: zero it) before reading it as a slice.
// Why it compiles: `HostBufferUninit::zeroed` returns a `HostBuffer`, which has `as_slice`.
// Enforced by: `HostBufferUninit` (no read access) versus `HostBuffer`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let pinned = ctx.alloc_host_uninit::<f32>(4)?.zeroed();
    let values: &[f32] = pinned.as_slice();
    assert_eq!(values, [0.0; 4]);
    pinned.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
