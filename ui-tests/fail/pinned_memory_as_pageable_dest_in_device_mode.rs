// Misuse: in device run mode, copy device memory of context B (device 1) into pinned memory of context A (device 0) with context B: `ctx_b.copy(&dev_b, &mut *pinned_a)`.
// Why it must not compile: in device run mode `aclrtMallocHost` returns device memory of device 0; a copy by device 1 writes it without peer access, as if it were brand-free pageable memory.
// Enforced by: `HostBuffer<'ctx, 'id, T, M>` dereferences (mutably) to `PinnedSlice<'id, T, M>`, which keeps A's brand, so it is `MemoryMut<'a>` only and `ctx_b.copy` refuses it.
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
    let mut pinned_a = ctx_a.alloc_host_zeroed::<f32>(8)?;
    let dev_b = ctx_b.alloc_zeroed::<f32>(8)?;
    ctx_b.copy(&dev_b, &mut *pinned_a)?;
    Ok(())
}
