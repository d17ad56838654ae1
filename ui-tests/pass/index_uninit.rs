// Right way: initialise pinned host memory (here: every byte set with `aclrtMemset`) before indexing it.
// Why it compiles: `HostBufferUninit::fill` returns a `HostBuffer`, which can be indexed.
// Enforced by: `HostBufferUninit` (no read access) versus `HostBuffer`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let pinned = ctx.alloc_host_uninit::<u8>(64)?.fill(0xAB)?;
    let first: u8 = pinned[0];
    assert_eq!(first, 0xAB);
    assert!(pinned.iter().all(|byte| byte == 0xAB));
    pinned.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
