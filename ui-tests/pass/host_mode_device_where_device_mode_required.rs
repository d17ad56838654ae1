// Right way: learn the run mode with `Acl::detect` and call device-run-mode code only in the `Detected::Device` branch.
// Why it compiles: in that branch the device is `Device<'_, DeviceMode>`, which satisfies `DeviceRunMode`; the host branch uses mode-generic code.
// Enforced by: the run mode parameter `M` and the `DeviceRunMode` bound.
use aclrt::bounds::DeviceRunMode;
use aclrt::{Acl, Detected, Device, RunMode};

fn on_board_only<M: DeviceRunMode>(device: &Device<'_, M>) -> u32 {
    device.id()
}

fn anywhere<M: RunMode>(device: &Device<'_, M>) -> u32 {
    device.id()
}

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let id = match acl.detect() {
        Detected::Device(rt) => {
            let device = rt.device(0)?;
            let id = on_board_only(&device);
            device.reset()?;
            id
        }
        Detected::Host(rt) => {
            let device = rt.device(0)?;
            let id = anywhere(&device);
            device.reset()?;
            id
        }
    };
    assert_eq!(id, 0);
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
