// Right way: let a scoped host function borrow data declared outside the scope closure (or move owned data in).
// Why it compiles: data declared before `Context::scope` outlives `'scope`; a `move` closure owns what it captures.
// Enforced by: the `F: Send + 'scope` bound of `Lane::host_fn`.
use std::sync::Mutex;

use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let message = String::from("hello from the stream");
        let log = Mutex::new(Vec::new());
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            lane.host_fn(|| log.lock().unwrap().push(message.clone()))?; // borrows outer data
            let owned = String::from("owned");
            let log = &log; // a `move` closure then moves only the reference
            lane.host_fn(move || log.lock().unwrap().push(owned))?; // moves its own data
            Ok(())
        })?;
        assert_eq!(
            log.into_inner().unwrap(),
            ["hello from the stream", "owned"]
        );
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
