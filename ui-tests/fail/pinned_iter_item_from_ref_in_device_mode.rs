// Misuse: in device run mode, take an element reference of pinned memory of context A from its iterator, make it a one-element slice with `core::slice::from_ref`, and copy it with context B of another device: `ctx_b.copy(core::slice::from_ref(pinned_a.iter().next().unwrap()), &mut dev_b)`.
// Why it must not compile: an iterator over references would launder each element into brand-free pageable memory of every context; device 1 would read device 0's memory without peer access.
// Enforced by: `PinnedSlice::iter` (and `for x in &buf`) yields the elements by value (`PinnedIter: Iterator<Item = T>`) in every run mode; `iter_mut` requires `M: PageableRunMode` (`HostMode`).
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
    let mut dev_b = ctx_b.alloc::<f32>(1)?;
    ctx_b.copy(
        core::slice::from_ref(pinned_a.iter().next().unwrap()),
        &mut dev_b,
    )?;
    Ok(())
}
