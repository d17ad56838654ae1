// Misuse: measure the time up to an end event that was never recorded (`aclrtEventElapsedTime`).
// Why it must not compile: the end event holds no timestamp; the runtime would return an error or a meaningless number.
// Enforced by: `Event::elapsed_since` exists only for `Event<'_, '_, K: TimingKind, S: IsRecorded>` (E0599 on an `Unrecorded` receiver).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let start = stream.record(ctx.create_event()?)?;
    let end = ctx.create_event()?; // never recorded
    start.synchronize()?;
    let _ms = end.elapsed_since(&start)?;
    Ok(())
}
