// Right way: record the event on the producing stream first, then let a lane wait for it.
// Why it compiles: `Stream::record` turns `Event<.., Unrecorded>` into `Event<.., Recorded>`, which satisfies `IsRecorded`.
// Enforced by: the state parameter `S` of `Event<'ctx, 'id, K, S>` and the `IsRecorded` bound of `Lane::wait_event`.
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
        let producer = ctx.create_stream()?;
        let consumer = ctx.create_stream()?;
        let produced = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&produced);
        producer.launch_host_fn(move || {
            std::thread::sleep(Duration::from_millis(30));
            flag.store(true, Ordering::SeqCst);
        })?;
        let event = producer.record(ctx.create_event()?)?; // after the slow work
        let seen = AtomicBool::new(false);
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&consumer, l);
            lane.wait_event(&event)?; // aclrtStreamWaitEvent
            lane.host_fn(|| seen.store(produced.load(Ordering::SeqCst), Ordering::SeqCst))?;
            Ok(())
        })?;
        assert!(
            seen.load(Ordering::SeqCst),
            "the consumer ran after the producer"
        );
        assert!(event.is_complete()?);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
