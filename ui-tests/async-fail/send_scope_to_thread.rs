// Misuse: share a `Scope` with another thread and open a lane there.
// Why it must not compile: a scope's bookkeeping (enlisted streams, events, host functions) is single-threaded, and its lanes bind the context on the calling thread.
// Enforced by: `Scope` is `!Sync` (it holds the marker `aclrt::marker::ThreadBound`), so `&Scope` is not `Send` (E0277).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let mut on_device = ctx.alloc::<u32>(3)?;
    ctx.scope(|s| {
        std::thread::scope(|t| {
            t.spawn(|| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                let _d = lane.copy(&input, &mut on_device);
            });
        });
        Ok(())
    })?;
    Ok(())
}
