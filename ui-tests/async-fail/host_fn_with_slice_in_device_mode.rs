// Misuse: in device run mode, take a host function's argument as a plain `&mut [T]` (`lane.host_fn_with(&mut pinned_a, |data: &mut [u32]| ctx_b.copy(&*data, ..))`) and copy it with a context of another device.
// Why it must not compile: in device run mode pinned memory is device memory of context A; a brand-free `&mut [T]` of it would be pageable memory for every context, and device 1 would read device 0's memory without peer access.
// Enforced by: `Lane::host_fn_with` hands the host function a `&mut PinnedSlice<'id, T, M>`, which dereferences to `[T]` only in host run mode.
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
    let stream = ctx_a.create_stream()?;
    let mut pinned_a = ctx_a.alloc_host_from(&[1u32, 2, 3, 4])?;
    let mut dev_b = ctx_b.alloc::<u32>(4)?;
    ctx_a.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _x = lane.host_fn_with(&mut pinned_a, |data: &mut [u32]| {
            let _ = ctx_b.copy(&*data, &mut dev_b);
        })?;
        Ok(())
    })?;
    Ok(())
}
