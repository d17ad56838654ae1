// Misuse: reset (`aclrtResetEvent`) a timing event.
// Why it must not compile: the runtime defines `aclrtResetEvent` only for events created with `ACL_EVENT_SYNC`; a timing event is re-recorded instead.
// Enforced by: `Stream::reset_event` takes `Event<'e, 'id, SyncOnly, Recorded>` only; a `Timing` event is a type mismatch (E0308).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let event = stream.record(ctx.create_event()?)?; // Timing
    let _event = stream.reset_event(event)?;
    Ok(())
}
