// Misuse: put `bool`s in pinned host memory: `bool` is `Copy` but not valid for every bit pattern.
// Why it must not compile: bytes written by the device (or a memset) could make a `bool` other than 0 or 1, which is undefined behaviour.
// Enforced by: `Context::alloc_host_from` requires `T: DeviceRepr` (a `bytemuck::Pod` subtrait), which `bool` does not implement.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let flags = ctx.alloc_host_from(&[true, false, true])?;
    drop(flags);
    Ok(())
}
