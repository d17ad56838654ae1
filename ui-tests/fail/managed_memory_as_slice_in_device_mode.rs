// Misuse: in device run mode, view managed memory as a plain slice with `as_slice()`, and copy it with a context of another device.
// Why it must not compile: in device run mode managed memory is memory of its own context's device; a `&[T]` is brand-free pageable memory that any context would copy, without peer access.
// Enforced by: `ManagedBuffer::as_slice` / `as_mut_slice` require `M: PageableRunMode`, which only `HostMode` implements (the rule of pinned memory).
use aclrt::{Acl, DeviceMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let rt = acl.require::<DeviceMode>()?;
    let device0 = rt.device(0)?;
    let device1 = rt.device(1)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device0.create_context(guard_a)?;
    let ctx_b = device1.create_context(guard_b)?;
    let managed_a = ctx_a.alloc_managed::<f32>(8)?;
    let mut dev_b = ctx_b.alloc::<f32>(8)?;
    ctx_b.copy(managed_a.as_slice(), &mut dev_b)?;
    Ok(())
}
