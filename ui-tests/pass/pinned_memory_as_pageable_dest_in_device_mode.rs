// Right way: in device run mode, bring device memory of context B (device 1) to device 0 with `copy_to_peer` (peer access), then copy it into pinned memory of context A with context A itself.
// Why it compiles: `copy_to_peer` takes a source of B's brand, a destination of A's brand and the `PeerAccess` proof; `ctx_a.copy` writes memory of its own brand (`&mut *pinned_a` is a `PinnedSlice` of A).
// Enforced by: the brand `'id` of `PinnedSlice<'id, T, M>`, and the `PeerAccess` value that only `Device::enable_peer_access` creates.
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
    let mut pinned_a = ctx_a.alloc_host_zeroed::<f32>(8)?;
    let dev_b = ctx_b.alloc_from(&[0.25f32; 8])?;
    let mut dev_a = ctx_a.alloc::<f32>(8)?;
    assert!(device1.can_access_peer(&device0)?);
    let access = device1.enable_peer_access(&device0)?;
    ctx_b.copy_to_peer(&access, &ctx_a, &dev_b, &mut dev_a)?;
    access.disable()?;
    ctx_a.copy(&dev_a, &mut *pinned_a)?; // its own context: fine
    assert_eq!(*pinned_a, [0.25; 8]);
    // A part of pinned memory is still pinned memory of its context.
    ctx_a.memset(&mut pinned_a[..4], 0)?;
    assert_eq!(*pinned_a, [0.0, 0.0, 0.0, 0.0, 0.25, 0.25, 0.25, 0.25]);
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
