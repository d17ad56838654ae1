// Right way: ask for the wait status of a `SyncOnly` (or `Timing`) event; ask an ExWithFlag event whether its record completed (`is_complete`).
// Why it compiles: `SyncOnly: WaitStatusKind`; `is_complete` (`aclrtQueryEventStatus`) is allowed for every kind.
// Enforced by: the `WaitStatusKind` bound of `Event::waits_complete`.
use aclrt::{Acl, ExSync, HostMode, SyncOnly, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let producer = ctx.create_stream()?;
        let consumer = ctx.create_stream()?;
        let event = producer.record(ctx.create_event_of::<SyncOnly>()?)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&consumer, l);
            lane.wait_event(&event)?;
            lane.synchronize()?;
            assert!(event.waits_complete()?); // aclrtQueryEventWaitStatus
            Ok(())
        })?;
        let ex = producer.record(ctx.create_event_of::<ExSync>()?)?;
        ex.synchronize()?;
        assert!(ex.is_complete()?);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
