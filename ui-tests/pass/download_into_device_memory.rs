// Right way: download device memory into host memory (a `Vec`).
// Why it compiles: the destination `Vec<f32>` implements `HostMemory`, so the kind is `ACL_MEMCPY_DEVICE_TO_HOST`.
// Enforced by: the `DeviceMemory`/`HostMemory` bounds of `Context::download`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let source = ctx.alloc_zeroed::<f32>(4)?;
    let mut target = vec![8.0f32; 4];
    ctx.download(&source, &mut target)?;
    assert_eq!(target, [0.0; 4]);
    source.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
