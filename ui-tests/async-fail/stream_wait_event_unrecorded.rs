// Misuse: outside a scope, make a stream wait (`Stream::wait_event`, `aclrtStreamWaitEvent`) for an event that was never recorded.
// Why it must not compile: an unrecorded event captures no work, so the wait orders nothing while the code reads as if it did.
// Enforced by: `Stream::wait_event` requires the state `S: IsRecorded`, like `Lane::wait_event`; `Event<'_, '_, Timing, Unrecorded>` does not satisfy it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let consumer = ctx.create_stream()?;
    let event = ctx.create_event()?; // never recorded
    consumer.wait_event(&event)?;
    Ok(())
}
