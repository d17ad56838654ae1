// Right way: reset only `SyncOnly` events; a reset event is `Unrecorded` again and can be recorded anew.
// Why it compiles: `Stream::reset_event` takes and returns a `SyncOnly` event.
// Enforced by: the signature `reset_event(Event<'e, 'id, SyncOnly, Recorded>) -> Event<'e, 'id, SyncOnly, Unrecorded>`.
use aclrt::{Acl, HostMode, SyncOnly, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let event = stream.record(ctx.create_event_of::<SyncOnly>()?)?;
        event.synchronize()?;
        let event = stream.reset_event(event)?; // aclrtResetEvent
        let event = stream.record(event)?; // and reuse it
        event.synchronize()?;
        assert!(event.is_complete()?);
        // A timing event is simply recorded again to move it.
        let timing = stream.record(ctx.create_event()?)?;
        let timing = stream.record(timing)?;
        timing.synchronize()?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
