// Misuse: a report callback (`Subscription::launch`, `aclrtLaunchCallback`) that borrows a local variable.
// Why it must not compile: a non-blocking callback runs on the reporter thread after the stream moved on, possibly after the local is gone (a dangling reference).
// Enforced by: `Subscription::launch` requires `F: FnOnce() + Send + 'static`.
use aclrt::{Acl, HostMode, Reporter, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let sub = reporter.subscribe(&stream)?;
    let mut count = 0u32;
    sub.launch(|| count += 1)?;
    Ok(())
}
