// Misuse: query the wait status (`aclrtQueryEventWaitStatus`) of an event created with `aclrtCreateEventExWithFlag`.
// Why it must not compile: the wait status is defined only for events of `aclrtCreateEvent` and `aclrtCreateEventWithFlag`; ExWithFlag events get 207000.
// Enforced by: `Event::waits_complete` requires the kind `K: WaitStatusKind`; `ExSync` does not implement it (E0277).
use aclrt::{Acl, ExSync, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let event = ctx.create_event_of::<ExSync>()?;
    let _done = event.waits_complete()?;
    Ok(())
}
