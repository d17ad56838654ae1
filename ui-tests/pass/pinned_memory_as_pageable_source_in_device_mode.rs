// Right way: in device run mode, copy pinned memory of context A with context A itself (the buffer, or a part of it), then from device 0 to device 1 with `copy_to_peer`, which demands peer access.
// Why it compiles: `ctx_a.copy` takes memory of its own brand (`HostBuffer` or `PinnedSlice` of A); `copy_to_peer` takes a source of A's brand, a destination of B's brand and the `PeerAccess` proof.
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
    let pinned_a = ctx_a.alloc_host_from(&[1.5f32, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5])?;
    let mut dev_a = ctx_a.alloc::<f32>(8)?;
    ctx_a.copy(&*pinned_a, &mut dev_a)?; // its own context: fine
    let mut dev_b = ctx_b.alloc_zeroed::<f32>(8)?;
    assert!(device0.can_access_peer(&device1)?);
    let access = device0.enable_peer_access(&device1)?;
    ctx_a.copy_to_peer(&access, &ctx_b, &dev_a, &mut dev_b)?;
    access.disable()?;
    let mut back_b = ctx_b.alloc_host_zeroed::<f32>(8)?;
    ctx_b.copy(&dev_b, &mut back_b)?;
    assert_eq!(*back_b, *pinned_a);
    // A part of pinned memory is still pinned memory of its context.
    let (_, upper) = pinned_a.split_at(4);
    let mut half_a = ctx_a.alloc::<f32>(4)?;
    ctx_a.copy(upper, &mut half_a)?;
    let mut half_back = [0.0f32; 4];
    ctx_a.copy(&half_a, &mut half_back)?;
    assert_eq!(half_back, [5.5, 6.5, 7.5, 8.5]);
    half_a.free()?;
    back_b.free()?;
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
