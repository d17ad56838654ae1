// Right way: copy device memory to device memory with `copy_on_device` (upload only takes host sources).
// Why it compiles: both sides implement `DeviceMemory`, so the kind is `ACL_MEMCPY_DEVICE_TO_DEVICE`.
// Enforced by: the `HostMemory`/`DeviceMemory` bounds of `upload` and `copy_on_device`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut source = ctx.alloc::<f32>(4)?;
    ctx.upload(&[1.0f32, 2.0, 3.0, 4.0], &mut source)?;
    let mut target = ctx.alloc::<f32>(4)?;
    ctx.copy_on_device(&source, &mut target)?;
    let mut back = [0.0f32; 4];
    ctx.download(&target, &mut back)?;
    assert_eq!(back, [1.0, 2.0, 3.0, 4.0]);
    target.free()?;
    source.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
