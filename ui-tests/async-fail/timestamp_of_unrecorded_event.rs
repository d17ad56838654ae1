// Misuse: read the timestamp (`aclrtEventGetTimestamp`) of an event that was never recorded.
// Why it must not compile: an unrecorded event has no timestamp; the runtime answers 507000 ("recorder null").
// Enforced by: `Event::timestamp` requires the state `S: IsRecorded`; `Unrecorded` does not implement it (E0277).
use aclrt::{Acl, ExTimeLine, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let event = ctx.create_event_of::<ExTimeLine>()?;
    let _at = event.timestamp()?;
    Ok(())
}
