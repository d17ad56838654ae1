// Right way: record the event on a stream, then block on it with `synchronize`.
// Why it compiles: `Stream::record` returns an `Event<.., Recorded>`, which has `synchronize`.
// Enforced by: `impl<K, S: IsRecorded> Event<'_, '_, K, S> { fn synchronize }`.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let done = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&done);
        stream.launch_host_fn(move || {
            std::thread::sleep(Duration::from_millis(20));
            flag.store(true, Ordering::SeqCst);
        })?;
        let event = stream.record(ctx.create_event()?)?;
        event.synchronize()?; // aclrtSynchronizeEvent: waits for the host function
        assert!(done.load(Ordering::SeqCst));
        assert!(event.is_complete()?);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
