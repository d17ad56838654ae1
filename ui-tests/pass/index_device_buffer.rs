// Right way: download device memory into host memory, then index the host copy.
// Why it compiles: a `Vec<f32>` is ordinary host memory; the device buffer is only touched by the runtime's copy.
// Enforced by: `DeviceBuffer` (no CPU access) versus host memory types (`Vec<T>`, `HostBuffer`).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buffer = ctx.alloc_zeroed::<f32>(4)?;
    let mut host = vec![1.0f32; 4];
    ctx.download(&buffer, &mut host)?;
    let first: f32 = host[0];
    assert_eq!(first, 0.0);
    buffer.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
