// Right way: in device run mode, read and write pinned memory through its element API by value (`get`, `set`, `update`, `update_all`, `iter`, `to_vec`, `copy_from_slice`, comparisons), which never hands out a `&[T]` or a `&T`; take a `Vec` copy (`to_vec`) for code that needs a slice.
// Why it compiles: `PinnedSlice<'id, T, M>` offers the same by-value CPU API in every run mode; only the plain-slice view and element references need `HostMode`, where pinned memory is ordinary host RAM.
// Enforced by: `Deref<Target = [T]>` and `Index<usize>` of `PinnedSlice` exist for `M: PageableRunMode` (`HostMode`) only.
use aclrt::sim::{RunMode, SimConfig};
use aclrt::{Acl, DeviceMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    aclrt::sim::configure(SimConfig {
        run_mode: RunMode::Device,
        ..SimConfig::from_env()
    });
    let acl = Acl::init()?;
    let rt = acl.require::<DeviceMode>()?;
    let device0 = rt.device(0)?;
    let device1 = rt.device(1)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device0.create_context(guard_a)?;
    let ctx_b = device1.create_context(guard_b)?;
    let mut pinned_a = ctx_a.alloc_host_from(&[1.5f32; 8])?;
    pinned_a.set(0, 0.5)?;
    pinned_a[6..].fill(2.0);
    assert_eq!(pinned_a.iter().sum::<f32>(), 0.5 + 5.0 * 1.5 + 2.0 * 2.0);
    // A `Vec` copy is pageable memory of the CPU: any context may copy it.
    let copy: Vec<f32> = pinned_a.to_vec();
    let mut dev_b = ctx_b.alloc::<f32>(8)?;
    ctx_b.copy(&copy, &mut dev_b)?;
    let mut back = [0.0f32; 8];
    ctx_b.copy(&dev_b, &mut back)?;
    assert_eq!(*pinned_a, back);
    pinned_a.copy_from_slice(&[3.0; 8]);
    assert_eq!(pinned_a.first(), Some(3.0));
    pinned_a.update_all(|x| x + 1.0);
    assert_eq!(pinned_a.get(7), Some(4.0));
    dev_b.free()?;
    pinned_a.free()?;
    ctx_b.destroy()?;
    ctx_a.destroy()?;
    device1.reset()?;
    device0.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
