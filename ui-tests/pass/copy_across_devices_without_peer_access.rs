// Right way: enable peer access from device 0 to device 1, then copy with `copy_to_peer`, which demands the `PeerAccess` proof.
// Why it compiles: `copy_to_peer` takes memory of its own brand as source, memory of `dst_ctx`'s brand as destination, and a `PeerAccess`.
// Enforced by: the brands `'id`, and the `PeerAccess` value that only `Device::enable_peer_access` creates.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    assert!(
        acl.device_count()? >= 2,
        "the simulator defaults to two devices"
    );
    let rt = acl.require::<HostMode>()?;
    let device0 = rt.device(0)?;
    let device1 = rt.device(1)?;
    make_guard!(guard0);
    make_guard!(guard1);
    let ctx0 = device0.create_context(guard0)?;
    let ctx1 = device1.create_context(guard1)?;
    let source = ctx0.alloc_from(&[1.5f32; 8])?;
    let mut target = ctx1.alloc_zeroed::<f32>(8)?;
    assert!(device0.can_access_peer(&device1)?);
    let access = device0.enable_peer_access(&device1)?;
    ctx0.copy_to_peer(&access, &ctx1, &source, &mut target)?;
    access.disable()?;
    let mut back = [0.0f32; 8];
    ctx1.download(&target, &mut back)?;
    assert_eq!(back, [1.5; 8]);
    target.free()?;
    source.free()?;
    ctx1.destroy()?;
    ctx0.destroy()?;
    device1.reset()?;
    device0.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
