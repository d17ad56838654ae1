// Misuse: refill a staging buffer with the CPU while a copy that reads it (a parked source) may still run.
// Why it must not compile: `aclrtMemcpyAsync` reads the staging buffer later, on the device's schedule; a CPU write meanwhile changes what is copied.
// Enforced by: `Lane::park(&mut staging)` takes the exclusive borrow for the rest of the scope; only `InFlight::wait` / `Fence::wait` give it back.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let mut staging = ctx.alloc_host_zeroed::<u32>(64)?;
    let mut dev = ctx.alloc::<u32>(64)?;
    ctx.scope(|s| {
        s.with_lane(&stream, |lane| {
            let st = lane.park(&mut staging)?;
            let _d = lane.copy(&st, &mut dev)?;
            staging.fill(7); // the copy may still be reading it
            Ok(())
        })
    })?;
    Ok(())
}
