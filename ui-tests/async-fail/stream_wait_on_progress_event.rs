// Misuse: outside a scope, make a stream wait (`Stream::wait_event`) for an event created with `aclrtCreateEventExWithFlag(ACL_EVENT_CAPTURE_STREAM_PROGRESS)`.
// Why it must not compile: only events carrying `ACL_EVENT_SYNC` can be waited on by a stream; the runtime refuses progress and time-line events with 207000.
// Enforced by: `Stream::wait_event` requires the kind `K: WaitableKind`, as `Lane::wait_event` does; `ExProgress` does not implement it (E0277).
use aclrt::{Acl, ExProgress, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let producer = ctx.create_stream()?;
    let consumer = ctx.create_stream()?;
    let progress = producer.record(ctx.create_event_of::<ExProgress>()?)?;
    consumer.wait_event(&progress)?;
    Ok(())
}
