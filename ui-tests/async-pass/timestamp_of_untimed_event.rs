// Right way: create the event with `ACL_EVENT_TIME_LINE` (`ExSyncTimed`: waitable and timed), record it, synchronise, then read its timestamp.
// Why it compiles: `ExSyncTimed: TimingKind` and the event is `Recorded`.
// Enforced by: the `TimingKind` and `IsRecorded` bounds of `Event::timestamp`.
use aclrt::{Acl, ExSyncTimed, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let start = stream.record(ctx.create_event_of::<ExSyncTimed>()?)?;
        let end = stream.record(ctx.create_event_of::<ExSyncTimed>()?)?;
        end.synchronize()?;
        let (t0, t1) = (start.timestamp()?, end.timestamp()?); // aclrtEventGetTimestamp
        assert!(t1 >= t0, "{t0:?} then {t1:?}");
        assert!(end.elapsed_since(&start)? >= 0.0);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
