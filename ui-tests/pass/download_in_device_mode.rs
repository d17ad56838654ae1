// Right way: in device run mode read device memory back with the mode-generic `copy`.
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
    let on_device = ctx.alloc_zeroed::<f32>(2)?;
    let mut out = vec![7.0f32; 2];
    ctx.copy(&on_device, &mut out)?;
    assert_eq!(out, [0.0, 0.0]);
    on_device.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
