// Misuse: in host run mode, pass pinned host memory (`HostBuffer`, from `aclrtMallocHost`) to `copy_on_device` (`ACL_MEMCPY_DEVICE_TO_DEVICE`).
// Why it must not compile: on a host (PCIe card) `aclrtMallocHost` memory is host memory; a device-to-device copy from it reads host memory as if it were device memory.
// Enforced by: `Context::copy_on_device` requires `DeviceResident<'id, M>`, which `HostBuffer` implements only for `M = DeviceMode`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let staged = ctx.alloc_host_from(&[1u8, 2, 3])?;
    let mut on_device = ctx.alloc::<u8>(3)?;
    ctx.copy_on_device(&staged, &mut on_device)?;
    Ok(())
}
