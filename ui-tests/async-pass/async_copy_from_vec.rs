// Right way: stage pageable data in pinned memory (`alloc_host_from`) for async copies, or copy it synchronously.
// Why it compiles: `HostBuffer` is `PinnedMemory`; `Context::copy` accepts pageable `Vec`s.
// Enforced by: the `PinnedMemory` bound behind `AsyncSource`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let input = vec![1u32, 2, 3];
        let pinned = ctx.alloc_host_from(&input)?; // aclrtMallocHost + copy
        let mut on_device = ctx.alloc::<u32>(3)?;
        let mut other = ctx.alloc::<u32>(3)?;
        ctx.copy(&input, &mut other)?; // synchronous: pageable is fine
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _d = lane.copy(&pinned, &mut on_device)?;
            Ok(())
        })?;
        let (mut a, mut b) = (vec![0u32; 3], vec![0u32; 3]);
        ctx.copy(&on_device, &mut a)?;
        ctx.copy(&other, &mut b)?;
        assert_eq!((a, b), (input.clone(), input));
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
