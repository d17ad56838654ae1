// Right way: the caller owns the `Acl`; a helper borrows it and returns a device tied to that borrow.
// Why it compiles: the returned `Device<'a, HostMode>` borrows an `Acl` that outlives the call.
// Enforced by: `Device<'acl, M>` borrows the `Acl` for `'acl`.
use aclrt::{Acl, Device, HostMode};

fn open_device(acl: &Acl) -> Result<Device<'_, HostMode>, aclrt::Error> {
    let device = acl.require::<HostMode>()?.device(0)?;
    Ok(device)
}

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = open_device(&acl)?;
    assert_eq!(device.id(), 0);
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
