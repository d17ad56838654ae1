// Right way: allocate a second buffer and copy the contents on the device.
// Why it compiles: two allocations, two owners; each is freed exactly once.
// Enforced by: `DeviceBuffer` is neither `Clone` nor `Copy`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buffer = ctx.alloc_from(&[1.0f32, 2.0, 3.0, 4.0])?;
    let mut twin = ctx.alloc::<f32>(4)?;
    ctx.copy_on_device(&buffer, &mut twin)?;
    let mut back = [0.0f32; 4];
    ctx.download(&twin, &mut back)?;
    assert_eq!(back, [1.0, 2.0, 3.0, 4.0]);
    assert_ne!(twin.as_device_ptr(), buffer.as_device_ptr());
    twin.free()?;
    buffer.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
