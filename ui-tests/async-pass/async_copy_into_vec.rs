// Right way: copy asynchronously into pinned memory, then move the data into a `Vec` after waiting.
// Why it compiles: `&mut HostBuffer` is an `AsyncDest`; the `Vec` is only touched by the CPU.
// Enforced by: the `PinnedMemory` bound behind `AsyncDest`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let on_device = ctx.alloc_from(&[1u32, 2, 3])?;
        let mut staging = ctx.alloc_host_zeroed::<u32>(3)?;
        let output: Vec<u32> = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let out = lane.copy(&on_device, &mut staging)?.wait()?;
            Ok(out.to_vec())
        })?;
        assert_eq!(output, [1, 2, 3]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
