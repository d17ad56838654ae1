// Right way: read a buffer through the `&mut` the awaited wait gives back.
// Why it compiles: awaiting `InFlight::wait_async` ends with the lane's work over and hands the buffer back for the rest of the scope.
// Enforced by: the future's output is the `&'scope mut` of the buffer (or the `InFlight` back, on failure).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
        let mut on_device = ctx.alloc::<u32>(3)?;
        let mut back = ctx.alloc_host_zeroed::<u32>(3)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let d = lane.copy(&input, &mut on_device)?;
            let pending = lane.copy(&d, &mut back)?.wait_async();
            let back = aclrt::future::block_on(pending)?;
            assert_eq!(back.as_slice(), &[1, 2, 3]);
            Ok(())
        })?;
        stream.destroy()?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
