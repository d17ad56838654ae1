// Right way: async-copy part of a buffer through a device view, or stage a host slice in pinned memory.
// Why it compiles: `DeviceView` and `HostBuffer` are `PinnedMemory`; a pageable `[T]` is not.
// Enforced by: the `PinnedMemory` bound behind `AsyncSource`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let input = [1u32, 2, 3, 4, 5];
        let pinned = ctx.alloc_host_from(&input[1..4])?;
        let whole = ctx.alloc_from(&input)?;
        let middle = whole.view(1..4)?;
        let mut a = ctx.alloc::<u32>(3)?;
        let mut b = ctx.alloc::<u32>(3)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _a = lane.copy(&pinned, &mut a)?;
            let _b = lane.copy(&middle, &mut b)?; // D2D from a view
            Ok(())
        })?;
        let (mut back_a, mut back_b) = ([0u32; 3], [0u32; 3]);
        ctx.copy(&a, &mut back_a)?;
        ctx.copy(&b, &mut back_b)?;
        assert_eq!((back_a, back_b), ([2, 3, 4], [2, 3, 4]));
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
