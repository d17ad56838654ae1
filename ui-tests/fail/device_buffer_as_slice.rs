// Misuse: view device memory as a Rust slice on the CPU.
// Why it must not compile: `aclrtMalloc` memory lies on the NPU; a `&[T]` of it would be dereferenced by the CPU.
// Enforced by: `DeviceBuffer` has no `as_slice` (nor any other slice view); only `HostBuffer` has one (a plain `&[T]` in host run mode only).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buffer = ctx.alloc_zeroed::<f32>(4)?;
    let values: &[f32] = buffer.as_slice();
    assert_eq!(values, [0.0; 4]);
    Ok(())
}
