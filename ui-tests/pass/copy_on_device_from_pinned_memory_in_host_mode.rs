// Right way: in device run mode (the application runs on the device), `aclrtMallocHost` memory is device memory, so `copy_on_device` accepts a `HostBuffer`.
// Why it compiles: `HostBuffer<'_, 'id, T, DeviceMode>` implements `DeviceResident<'id, DeviceMode>`.
// Enforced by: the `DeviceResident<'id, M>` bounds of `Context::copy_on_device`.
use aclrt::sim::{RunMode, SimConfig};
use aclrt::{Acl, DeviceMode, make_guard};

fn main() -> aclrt::Result<()> {
    aclrt::sim::configure(SimConfig {
        run_mode: RunMode::Device,
        ..SimConfig::from_env()
    });
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let staged = ctx.alloc_host_from(&[1u8, 2, 3])?;
    let mut on_device = ctx.alloc::<u8>(3)?;
    ctx.copy_on_device(&staged, &mut on_device)?;
    let mut back = ctx.alloc_host_zeroed::<u8>(3)?;
    ctx.copy_on_device(&on_device, &mut back)?;
    assert_eq!(back.to_vec(), [1, 2, 3]);
    back.free()?;
    on_device.free()?;
    staged.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
