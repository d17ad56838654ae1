// Misuse: read, on the scope's thread, a counter that a queued host function is still going to modify.
// Why it must not compile: the host function runs on a runtime thread at an unknown time: a data race on `count`.
// Enforced by: `Lane::host_fn` requires `F: Send + 'scope`, so the closure's `&mut count` is held until the scope ends (E0502).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let mut count = 0u32;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        lane.host_fn(|| count += 1)?;
        println!("{count}"); // the host function may be running now
        Ok(())
    })?;
    Ok(())
}
