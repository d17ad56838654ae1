// Right way: in device run mode, copy one element of pinned memory with its own context as the branded one-element part `&pinned_a[..1]`, or read it by value (`pinned_a.get(0)`) and let another device's context copy that CPU value.
// Why it compiles: `&pinned_a[..1]` is a `PinnedSlice` of A's brand, a copy operand of A; `core::slice::from_ref(&value)` borrows a local copy, which is pageable memory of the program.
// Enforced by: range indexing of `PinnedSlice` keeps the brand; `PinnedSlice::get` returns the element by value.
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
    let pinned_a = ctx_a.alloc_host_from(&[1.5f32, 2.5, 3.5, 4.5])?;
    // One element, still pinned memory of A: A copies it.
    let mut dev_a = ctx_a.alloc::<f32>(1)?;
    ctx_a.copy(&pinned_a[..1], &mut dev_a)?;
    // One element by value: a CPU copy, which B may copy.
    let value = pinned_a.get(0).expect("in bounds");
    let mut dev_b = ctx_b.alloc::<f32>(1)?;
    ctx_b.copy(core::slice::from_ref(&value), &mut dev_b)?;
    let (mut back_a, mut back_b) = ([0.0f32], [0.0f32]);
    ctx_a.copy(&dev_a, &mut back_a)?;
    ctx_b.copy(&dev_b, &mut back_b)?;
    assert_eq!((back_a, back_b), ([1.5], [1.5]));
    dev_b.free()?;
    dev_a.free()?;
    pinned_a.free()?;
    ctx_b.destroy()?;
    ctx_a.destroy()?;
    device1.reset()?;
    device0.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
