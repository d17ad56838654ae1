// Misuse: move a `Lane` into another thread and queue async work from there.
// Why it must not compile: the lane records into its scope's single-threaded bookkeeping, which would race with the scope's own thread.
// Enforced by: `Lane` holds the marker `aclrt::marker::ThreadBound` and `&Scope` (`Scope: !Sync`), so `Lane` is `!Send` (E0277).
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
        make_guard!(l);
        let lane = s.lane(&stream, l);
        std::thread::scope(|t| {
            t.spawn(move || {
                let _d = lane.copy(&input, &mut on_device);
            });
        });
        Ok(())
    })?;
    Ok(())
}
