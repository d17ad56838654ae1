// Misuse: finalize the runtime (`aclFinalize`) while a device opened through it is still open.
// Why it must not compile: AscendCL requires every device to be reset before `aclFinalize`; finalizing first leaves a dangling device reference.
// Enforced by: `Device<'acl, M>` borrows the `Acl` for `'acl`, and `Acl::finalize(self)` needs to move it.
use aclrt::{Acl, HostMode};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    acl.finalize()?;
    device.reset()?;
    Ok(())
}
