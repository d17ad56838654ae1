// Right way: change the source of an async copy between scopes (or before the copy is queued).
// Why it compiles: the shared `'scope` borrow of `input` ends when the first scope has synchronised.
// Enforced by: `AsyncSource` for `&'scope S`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let mut input = ctx.alloc_host_from(&[1u32, 2, 3])?;
        let mut on_device = ctx.alloc::<u32>(3)?;
        let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
        for round in 0..2u32 {
            input[0] = 9 + round; // no copy of `input` is in flight here
            ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                let d = lane.copy(&input, &mut on_device)?;
                let out = lane.copy(&d, &mut output)?.wait()?;
                assert_eq!(out.as_slice(), [9 + round, 2, 3]);
                Ok(())
            })?;
        }
        assert_eq!(output.as_slice(), [10, 2, 3]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
