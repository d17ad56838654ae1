// Misuse: read the timestamp (`aclrtEventGetTimestamp`) of an event created with `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)`, without `ACL_EVENT_TIME_LINE`.
// Why it must not compile: without the time-line flag the record captures no timestamp; the runtime answers 107006.
// Enforced by: `Event::timestamp` requires the kind `K: TimingKind`; `ExSync` does not implement it (E0277).
use aclrt::{Acl, ExSync, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let event = stream.record(ctx.create_event_of::<ExSync>()?)?;
    event.synchronize()?;
    let _at = event.timestamp()?;
    Ok(())
}
