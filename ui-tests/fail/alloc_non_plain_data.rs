// Misuse: allocate device memory for `String`, a type that owns a heap pointer.
// Why it must not compile: the runtime copies raw bytes; a `String` copied to the NPU and back is a dangling, double-owned pointer.
// Enforced by: `Context::alloc` requires `T: DeviceRepr` (a `bytemuck::Pod` subtrait), which `String` does not implement.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let names = ctx.alloc::<String>(4)?;
    drop(names);
    Ok(())
}
