// Misuse: a function initialises the runtime, opens a device and returns the device, dropping (finalizing) the `Acl`.
// Why it must not compile: the returned device would outlive `aclFinalize`.
// Enforced by: `Device<'acl, M>` borrows the local `Acl` for `'acl` (through `Runtime<'acl, M>`), so it cannot be returned past it.
use aclrt::{Acl, Device, HostMode};

fn open_device() -> Result<Device<'static, HostMode>, aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    Ok(device)
}

fn main() -> Result<(), aclrt::Error> {
    let device = open_device()?;
    device.reset()?;
    Ok(())
}
