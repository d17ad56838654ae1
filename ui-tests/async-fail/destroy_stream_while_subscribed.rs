// Misuse: destroy a stream while it is subscribed to a reporter.
// Why it must not compile: the subscription would name a destroyed stream (`aclrtUnSubscribeReport` with a stale handle) and its queued callbacks would lose their stream.
// Enforced by: `Subscription<'_, 's, ..>` borrows the `Stream`; `Stream::destroy(self)` needs it unborrowed.
use aclrt::{Acl, HostMode, Reporter, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let sub = reporter.subscribe(&stream)?;
    stream.destroy()?;
    drop(sub);
    Ok(())
}
