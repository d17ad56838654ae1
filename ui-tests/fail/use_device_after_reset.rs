// Misuse: create a context on a device after resetting it explicitly.
// Why it must not compile: after `aclrtResetDevice` this `Device` no longer holds a reference on the device.
// Enforced by: `Device::reset(self)` consumes the `Device` (it is not `Copy`), so later uses are uses of a moved value.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    device.reset()?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    ctx.destroy()?;
    Ok(())
}
