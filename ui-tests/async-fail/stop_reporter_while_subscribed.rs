// Misuse: stop the reporter thread while a stream is still subscribed to it.
// Why it must not compile: the stream's callbacks would wait for a thread that no longer calls `aclrtProcessReport`; a blocking callback would block the stream forever.
// Enforced by: `Subscription<'r, ..>` borrows the `Reporter`; `Reporter::stop(self)` needs it unborrowed.
use aclrt::{Acl, HostMode, Reporter, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let sub = reporter.subscribe(&stream)?;
    reporter.stop()?;
    sub.launch(|| {})?;
    Ok(())
}
