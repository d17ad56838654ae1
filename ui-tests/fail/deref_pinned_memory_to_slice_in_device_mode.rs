// Misuse: in device run mode, turn pinned memory into a plain `&[T]` by dereferencing twice (`&**pinned`), and copy it with a context of another device.
// Why it must not compile: in device run mode pinned memory is device memory of its own context's device; a `&[T]` is brand-free pageable memory that any context would copy, without peer access.
// Enforced by: `PinnedSlice<'id, T, M>` dereferences to `[T]` only for `M: PageableRunMode` (`HostMode`); `PinnedSlice<'_, T, DeviceMode>` has no `Deref`.
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
    let plain: &[f32] = &**pinned_a;
    ctx_b.copy(plain, &mut dev_b)?;
    Ok(())
}
