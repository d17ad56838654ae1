// Right way: create (and destroy) contexts on a device before resetting it.
// Why it compiles: every use comes before the consuming `Device::reset(self)`.
// Enforced by: `Device::reset(self)` consumes the device.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    assert_eq!(ctx.device_id()?, device.id());
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
