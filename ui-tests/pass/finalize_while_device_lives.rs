// Right way: reset every device before finalizing the runtime.
// Why it compiles: `Device::reset(self)` ends the device's borrow of the `Acl`, so `Acl::finalize(self)` can move it.
// Enforced by: `Device<'acl, M>` borrows the `Acl` for `'acl`.
use aclrt::{Acl, HostMode};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    assert_eq!(device.id(), 0);
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
