// Right way: in device run mode, take an array element of pinned memory by value (`pinned_a.get(0)`, a copy on the CPU) to copy it with another device's context, or copy the branded one-element part `&pinned_a[..1]` with its own context.
// Why it compiles: `get` returns a `[u8; 64]` value, which is pageable memory of the program that any context may copy; `&pinned_a[..1]` is a `PinnedSlice` of A's brand, a copy operand of A.
// Enforced by: `PinnedSlice::get` returns `Option<T>` by value in every run mode; range indexing of `PinnedSlice` returns a `PinnedSlice` of the same brand.
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
    let pinned_a = ctx_a.alloc_host_from(&[[7u8; 64], [8; 64], [9; 64], [10; 64]])?;
    // A copy of the element, in pageable memory of the CPU: any context may copy it.
    let first: [u8; 64] = pinned_a.get(0).expect("in bounds");
    let mut dev_b = ctx_b.alloc::<u8>(64)?;
    ctx_b.copy(&first, &mut dev_b)?;
    let mut back_b = [0u8; 64];
    ctx_b.copy(&dev_b, &mut back_b)?;
    assert_eq!(back_b, [7u8; 64]);
    // The element as pinned memory of A, copied by A itself.
    let mut dev_a = ctx_a.alloc::<[u8; 64]>(1)?;
    ctx_a.copy(&pinned_a[1..2], &mut dev_a)?;
    let mut back_a = [[0u8; 64]; 1];
    ctx_a.copy(&dev_a, &mut back_a)?;
    assert_eq!(back_a, [[8u8; 64]]);
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
