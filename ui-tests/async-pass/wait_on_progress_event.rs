// Right way: watch a stream with an `ExProgress` event (query or synchronise it) and order other streams with an `ExSync` event.
// Why it compiles: `ExSync: WaitableKind` (created with `ACL_EVENT_SYNC`); `ExProgress` is only queried and synchronised, which every kind allows.
// Enforced by: the kind parameter `K` of `Event<'ctx, 'id, K, S>` and the `WaitableKind` bound of `Lane::wait_event`.
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aclrt::{Acl, ExProgress, ExSync, HostMode, make_guard};

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
            std::thread::sleep(Duration::from_millis(20));
            flag.store(true, Ordering::SeqCst);
        })?;
        let progress = producer.record(ctx.create_event_of::<ExProgress>()?)?;
        let ready = producer.record(ctx.create_event_of::<ExSync>()?)?;
        let seen = AtomicBool::new(false);
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&consumer, l);
            lane.wait_event(&ready)?; // aclrtStreamWaitEvent on a SYNC event
            lane.host_fn(|| seen.store(produced.load(Ordering::SeqCst), Ordering::SeqCst))?;
            Ok(())
        })?;
        progress.synchronize()?; // the progress event is watched, not waited on
        assert!(progress.is_complete()?);
        assert!(seen.load(Ordering::SeqCst), "the consumer ran after the producer");
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
