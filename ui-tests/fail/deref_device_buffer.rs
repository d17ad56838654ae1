// Misuse: dereference device memory on the CPU (`*buffer`, as one would a `Vec` or a `HostBuffer`).
// Why it must not compile: `aclrtMalloc` memory lies on the NPU; the CPU cannot read it.
// Enforced by: `DeviceBuffer` does not implement `Deref`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buffer = ctx.alloc_zeroed::<f32>(4)?;
    let values: &[f32] = &*buffer;
    assert_eq!(values, [0.0; 4]);
    Ok(())
}
