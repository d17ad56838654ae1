// Right way: wait for the fence (`aclrtSynchronizeEvent` on the event recorded after the copy), then read the buffer it gives back; the lane's later work keeps running.
// Why it compiles: `Fence::wait` returns the `&'scope mut` the copy took, once the event has completed.
// Enforced by: `InFlight::fence` / `Fence::wait`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[3u32; 64])?;
        let mut dev = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut later = ctx.alloc::<u32>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let d = lane.copy(&input, &mut dev)?;
                let done = lane.copy(&d, &mut out)?.fence()?;
                let _next = lane.memset(&mut later, 0)?; // queued after the fence, not waited for
                let out = done.wait()?;
                assert_eq!(out.as_slice(), [3u32; 64]);
                Ok(())
            })
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
