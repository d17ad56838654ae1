// Misuse: in device run mode, borrow one element of pinned memory of context A mutably, make it a one-element destination with `core::slice::from_mut`, and let context B of another device copy into it: `ctx_b.copy(&dev_b, core::slice::from_mut(pinned_a.get_mut(0).unwrap()))`.
// Why it must not compile: `from_mut` makes any `&mut T` a brand-free `&mut [T]`, a pageable destination for every context; device 1 would write device 0's memory without peer access.
// Enforced by: `PinnedSlice::get_mut`, `iter_mut` and `IndexMut<usize>` (`buf[i] = v`) require `M: PageableRunMode` (`HostMode`); in device run mode elements are written by value (`set`, `update`, `update_all`, `copy_from_slice`, `fill`).
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
    let dev_b = ctx_b.alloc_zeroed::<f32>(1)?;
    ctx_b.copy(&dev_b, core::slice::from_mut(pinned_a.get_mut(0).unwrap()))?;
    Ok(())
}
