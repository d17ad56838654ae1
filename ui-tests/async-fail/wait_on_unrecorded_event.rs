// Misuse: make a stream wait (`aclrtStreamWaitEvent`) for an event that was never recorded.
// Why it must not compile: an unrecorded event captures no work, so the wait orders nothing while the code reads as if it did.
// Enforced by: `Lane::wait_event` requires the state `S: IsRecorded`; `Event<'_, '_, Timing, Unrecorded>` does not satisfy it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let event = ctx.create_event()?; // never recorded
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        lane.wait_event(&event)?;
        Ok(())
    })?;
    Ok(())
}
