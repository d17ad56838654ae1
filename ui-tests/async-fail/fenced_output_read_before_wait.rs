// Misuse: read a device-to-host copy's destination after fencing it, before the fence's wait.
// Why it must not compile: the fence's event records where the copy ends; until `aclrtSynchronizeEvent` returns, the device may still be writing the buffer.
// Enforced by: `Fence<'scope, 'sid, D>` holds the exclusive borrow of the buffer for the rest of the scope; only `Fence::wait` returns it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[3u32; 64])?;
    let mut dev = ctx.alloc::<u32>(64)?;
    let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
    ctx.scope(|s| {
        s.with_lane(&stream, |lane| {
            let d = lane.copy(&input, &mut dev)?;
            let done = lane.copy(&d, &mut out)?.fence()?;
            assert_eq!(out[0], 3); // not waited for yet
            done.wait()?;
            Ok(())
        })
    })?;
    Ok(())
}
