// Right way: a wait that failed gives the buffer back still in flight (`WaitFailed::into_item`); `reuse` takes it back whatever its work did, and after the recovery point (`Scope::recover`) the scope goes on.
// Why it compiles: `reuse` returns the `&'scope mut` once the lane is idle (a checked `wait` would fail again: the work faulted).
// Enforced by: `InFlight::wait_or_keep`, `WaitFailed::into_item`, `InFlight::reuse`.
use aclrt::{Acl, ErrorKind, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[3u32; 64])?;
        let mut dev = ctx.alloc::<u32>(64)?;
        let mut host = ctx.alloc_host_zeroed::<u32>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let d = lane.copy(&input, &mut dev)?;
                aclrt::sim::inject_stream_task_fault(stream.as_raw(), 1, 507015);
                let x = lane.copy(&d, &mut host)?; // faults: nothing copied
                let failed = x.wait_or_keep().unwrap_err();
                assert_eq!(failed.error().kind(), ErrorKind::DeviceFault);
                assert_eq!(failed.error().function(), Some("aclrtMemcpyAsync"));
                let host = failed.into_item().reuse()?; // back, whatever the work did
                host[0] = 1;
                // The failure sticks to the scope until its recovery point, which
                // synchronises every lane and returns it; then the scope goes on.
                assert!(s.recover()?.is_some());
                // `d`'s contents come from before the failure, so results derived
                // from it stay suspect: copy it afresh.
                let d = lane.copy(&input, d)?;
                let again = lane.copy(&d, lane.park(host)?)?.wait()?;
                assert_eq!(again.as_slice(), [3u32; 64]);
                Ok(())
            })
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
