// Misuse: block the host on an event (`aclrtSynchronizeEvent`) that was never recorded.
// Why it must not compile: there is no captured work to wait for; the call would return at once and wait for nothing.
// Enforced by: `Event::synchronize` exists only for `Event<'_, '_, K, S: IsRecorded>`; an `Unrecorded` event has no such method (E0599).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let event = ctx.create_event()?; // never recorded
    event.synchronize()?;
    Ok(())
}
