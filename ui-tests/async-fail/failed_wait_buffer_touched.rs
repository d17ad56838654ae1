// Misuse: after a wait that failed (`wait_or_keep` returned the buffer in a `WaitFailed`), touch the buffer with the CPU anyway.
// Why it must not compile: a failed wait proves nothing about the device's work on the buffer; it may still be running.
// Enforced by: `WaitFailed<InFlight<'scope, 'sid, D>>` gives back the `InFlight`, which still holds the exclusive borrow for the rest of the scope.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[3u32; 64])?;
    let mut out = ctx.alloc::<u32>(64)?;
    let mut host = ctx.alloc_host_zeroed::<u32>(64)?;
    ctx.scope(|s| {
        s.with_lane(&stream, |lane| {
            let d = lane.copy(&input, &mut out)?;
            let x = lane.copy(&d, &mut host)?;
            if let Err(failed) = x.wait_or_keep() {
                host[0] = 1; // still in flight
                drop(failed);
            }
            Ok(())
        })
    })?;
    Ok(())
}
