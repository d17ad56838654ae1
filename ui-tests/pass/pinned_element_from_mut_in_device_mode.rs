// Right way: in device run mode, let another device's context copy into pageable memory of the CPU and store the value into pinned memory by value (`pinned_a.set(0, v)`), or copy into the branded one-element part `&mut pinned_a[..1]` with the buffer's own context.
// Why it compiles: `set` takes the element by value; `&mut pinned_a[..1]` is a `PinnedSlice` of A's brand, a copy destination of A.
// Enforced by: `PinnedSlice::set` / `update` take and return values in every run mode; range indexing of `PinnedSlice` keeps the brand.
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
    let mut pinned_a = ctx_a.alloc_host_zeroed::<f32>(4)?;
    let dev_b = ctx_b.alloc_from(&[2.5f32])?;
    // B copies into pageable memory of the CPU; the value goes into A's pinned memory.
    let mut staged = [0.0f32];
    ctx_b.copy(&dev_b, &mut staged)?;
    pinned_a.set(0, staged[0])?;
    // A copies into a part of its own pinned memory.
    let dev_a = ctx_a.alloc_from(&[4.0f32])?;
    ctx_a.copy(&dev_a, &mut pinned_a[3..])?;
    pinned_a.update(1, |x| x + 1.0)?;
    assert_eq!(*pinned_a, [2.5, 1.0, 0.0, 4.0]);
    assert!(pinned_a.set(4, 0.0).is_err());
    dev_a.free()?;
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
