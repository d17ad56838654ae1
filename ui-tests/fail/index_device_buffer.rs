// Misuse: read an element of device memory from the CPU by indexing it.
// Why it must not compile: `aclrtMalloc` memory lies on the NPU; the CPU cannot dereference it.
// Enforced by: `DeviceBuffer` implements no `Index`, `Deref` or slice access; data leaves it only through the `Context` copy methods.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buffer = ctx.alloc_zeroed::<f32>(4)?;
    let first: f32 = buffer[0];
    assert_eq!(first, 0.0);
    Ok(())
}
