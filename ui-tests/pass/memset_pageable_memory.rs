// Right way: memset runtime memory with `Context::memset`; fill pageable memory on the CPU.
// Why it compiles: a `HostBuffer` is pinned memory the runtime allocated; a `Vec` is filled with `slice::fill`.
// Enforced by: `Context::memset` requires `D: PinnedMemory<'id>`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut pinned = ctx.alloc_host_zeroed::<u8>(64)?;
    ctx.memset(&mut pinned, 7)?; // aclrtMemset on runtime memory
    assert!(pinned.iter().all(|b| b == 7));
    let mut on_device = ctx.alloc::<u8>(64)?;
    ctx.memset(&mut on_device, 9)?;
    let mut pageable = vec![0u8; 64];
    ctx.copy(&on_device, &mut pageable)?;
    assert!(pageable.iter().all(|&b| b == 9));
    pageable.fill(7); // pageable memory: the CPU fills it
    assert!(pageable.iter().all(|&b| b == 7));
    drop(on_device);
    drop(pinned);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
