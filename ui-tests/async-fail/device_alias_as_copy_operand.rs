// Misuse: use the device alias of registered host memory (`devPtr` of `aclrtHostRegister`) as a copy operand.
// Why it must not compile: the runtime documents that only device code (a kernel argument) may use the alias; memory operations on it are undefined.
// Enforced by: `DeviceAlias<'r, 'id, T>` implements none of the copy-operand traits (`Memory`, `AsyncSource`).
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let mut user = PageAlignedBuf::<f32>::zeroed(1024)?;
    let reg = ctx.register_host(&mut user)?;
    let alias = reg.device_alias();
    let mut on_device = ctx.alloc::<f32>(1024)?;
    ctx.copy(&alias, &mut on_device)?;
    Ok(())
}
