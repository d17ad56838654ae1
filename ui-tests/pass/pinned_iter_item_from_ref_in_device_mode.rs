// Right way: in device run mode, iterate over pinned memory by value (`pinned_a.iter()`, `for x in &pinned_a`) and give another device's context a CPU copy of what it needs; write back by value (`update_all`).
// Why it compiles: `PinnedIter` yields `T` values, copies in pageable memory of the program, which any context may copy; `update_all` gets and returns values.
// Enforced by: `PinnedSlice::iter` returns `PinnedIter<'_, T>: Iterator<Item = T>` in every run mode.
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
    let mut pinned_a = ctx_a.alloc_host_from(&[1.5f32, 2.5, 3.5, 4.5])?;
    let first: f32 = pinned_a.iter().next().expect("not empty");
    let mut dev_b = ctx_b.alloc::<f32>(1)?;
    ctx_b.copy(core::slice::from_ref(&first), &mut dev_b)?;
    let mut back_b = [0.0f32];
    ctx_b.copy(&dev_b, &mut back_b)?;
    assert_eq!(back_b, [1.5]);
    let mut sum = 0.0;
    for x in &pinned_a {
        sum += x;
    }
    assert_eq!(sum, 12.0);
    pinned_a.update_all(|x| x * 2.0);
    assert_eq!(
        pinned_a.iter().rev().collect::<Vec<f32>>(),
        [9.0, 7.0, 5.0, 3.0]
    );
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
