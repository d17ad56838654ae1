// Misuse: drop (`aclrtDestroyEvent`) an event that a queued `aclrtStreamWaitEvent` of the scope still depends on.
// Why it must not compile: the stream would wait on a destroyed handle (undefined in the runtime).
// Enforced by: `Lane::wait_event` borrows the event for `'scope`, until the scope has synchronised; moving it out is E0505.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let producer = ctx.create_stream()?;
    let consumer = ctx.create_stream()?;
    let event = producer.record(ctx.create_event()?)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&consumer, l);
        lane.wait_event(&event)?;
        drop(event); // the wait may still be pending
        Ok(())
    })?;
    Ok(())
}
