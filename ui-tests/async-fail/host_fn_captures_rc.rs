// Misuse: queue a host function that captures an `Rc`.
// Why it must not compile: the host function runs on a runtime thread; `Rc`'s non-atomic reference count would race with the owner's thread.
// Enforced by: `Lane::host_fn` requires `F: Send`; `Rc<T>` is not `Send` (E0277).
use std::rc::Rc;

use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let shared = Rc::new(vec![1u32, 2, 3]);
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let mine = Rc::clone(&shared);
        lane.host_fn(move || println!("{}", mine.len()))?;
        Ok(())
    })?;
    Ok(())
}
