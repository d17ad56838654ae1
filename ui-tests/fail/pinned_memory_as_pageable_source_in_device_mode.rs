// Misuse: in device run mode, dereference pinned memory of context A (device 0) and copy it with context B (device 1): `ctx_b.copy(&*pinned_a, &mut dev_b)`.
// Why it must not compile: in device run mode `aclrtMallocHost` returns device memory of device 0; a copy by device 1 reads it without peer access, as if it were brand-free pageable memory.
// Enforced by: `HostBuffer<'ctx, 'id, T, M>` dereferences to `PinnedSlice<'id, T, M>`, which keeps A's brand (not to `[T]`, which has none), so `ctx_b.copy` refuses it like the buffer itself.
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
    let pinned_a = ctx_a.alloc_host_from(&[1.5f32; 8])?;
    let mut dev_b = ctx_b.alloc::<f32>(8)?;
    ctx_b.copy(&*pinned_a, &mut dev_b)?;
    Ok(())
}
