// Misuse: a report callback that captures an `Rc` (not thread-safe).
// Why it must not compile: the callback runs on the reporter thread while this thread may still touch the `Rc`'s count: a data race.
// Enforced by: `Subscription::launch_blocking` requires `F: Send`; `Rc<T>` is `!Send`.
use std::rc::Rc;
use aclrt::{Acl, HostMode, Reporter, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let sub = reporter.subscribe(&stream)?;
    let shared = Rc::new(5u32);
    let mine = Rc::clone(&shared);
    sub.launch_blocking(move || assert_eq!(*mine, 5))?;
    Ok(())
}
