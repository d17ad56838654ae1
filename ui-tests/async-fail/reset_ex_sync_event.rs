// Misuse: reset (`aclrtResetEvent`) an event created with `aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)`.
// Why it must not compile: the runtime never allows `aclrtResetEvent` on ExWithFlag events (207000); they are re-recorded instead.
// Enforced by: `Stream::reset_event` requires the kind `K: ResettableKind`; `ExSync` does not implement it (E0277).
use aclrt::{Acl, ExSync, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let event = stream.record(ctx.create_event_of::<ExSync>()?)?;
    let _event = stream.reset_event(event)?;
    Ok(())
}
