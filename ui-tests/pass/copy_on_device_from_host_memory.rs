// Right way: move host data to the device with `upload` (host-to-device).
// Why it compiles: the source `[u16; 3]` is `HostMemory`, the destination `DeviceBuffer` is `DeviceMemory`.
// Enforced by: the `HostMemory`/`DeviceMemory` bounds of `upload` and `copy_on_device`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut target = ctx.alloc::<u16>(3)?;
    ctx.upload(&[1u16, 2, 3], &mut target)?;
    let mut back = [0u16; 3];
    ctx.download(&target, &mut back)?;
    assert_eq!(back, [1, 2, 3]);
    target.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
