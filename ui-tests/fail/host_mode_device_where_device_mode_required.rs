// Misuse: pass a device of a host-run-mode runtime to code written for device run mode (`ACL_DEVICE`, e.g. an Atlas 200 DK board).
// Why it must not compile: such code assumes "host" allocations are device memory the CPU shares with the NPU, which is false on a PCIe card.
// Enforced by: the run mode parameter `M` of `Device<'acl, M>` and the `DeviceRunMode` bound, implemented only by `DeviceMode`.
use aclrt::bounds::DeviceRunMode;
use aclrt::{Acl, Device, HostMode};

fn on_board_only<M: DeviceRunMode>(device: &Device<'_, M>) -> u32 {
    device.id()
}

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    assert_eq!(on_board_only(&device), 0);
    Ok(())
}
