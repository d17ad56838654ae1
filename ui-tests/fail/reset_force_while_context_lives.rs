// Misuse: force-reset a device (`aclrtResetDeviceForce`) while an explicit context made through it lives.
// Why it must not compile: the forced reset tears down the device for every holder; the context (and what it owns) would be used after the teardown.
// Enforced by: `Context<'dev, 'id, M>` borrows the `Device`; `Device::reset_force(self)` needs to move it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    device.reset_force()?;
    ctx.destroy()?;
    Ok(())
}
