// Misuse: measure the time from a start event that was never recorded (`aclrtEventElapsedTime`).
// Why it must not compile: the start event holds no timestamp; the runtime would return an error or a meaningless number.
// Enforced by: `Event::elapsed_since` requires `start: &Event<'_, 'id, K, S2>` with `S2: IsRecorded`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let start = ctx.create_event()?; // never recorded
    let end = stream.record(ctx.create_event()?)?;
    end.synchronize()?;
    let _ms = end.elapsed_since(&start)?;
    Ok(())
}
