// Right way: in device run mode use the mode-generic `copy`; its kind is `ACL_MEMCPY_DEVICE_TO_DEVICE` there.
// Why it compiles: `Context::copy` has no `HostRunMode` bound; the kind comes from `M::KIND` and the residencies.
// Enforced by: `HostRunMode` on `upload`/`download`, absent on `copy`.
use aclrt::sim::{RunMode, SimConfig};
use aclrt::{Acl, DeviceMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    aclrt::sim::configure(SimConfig {
        run_mode: RunMode::Device,
        ..SimConfig::from_env()
    });
    let acl = Acl::init()?;
    let device = acl.require::<DeviceMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut on_device = ctx.alloc::<f32>(2)?;
    ctx.copy(&[1.0f32, 2.0], &mut on_device)?;
    let mut back = ctx.alloc_host_zeroed::<f32>(2)?;
    ctx.copy(&on_device, &mut back)?;
    assert_eq!(*back, [1.0, 2.0]);
    back.free()?;
    on_device.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
