// Right way: record an `ExSync` event again to move it (each record replaces what it captured); reset only `SyncOnly` events.
// Why it compiles: `Stream::record` accepts a recorded event of any kind; `SyncOnly: ResettableKind`.
// Enforced by: the `ResettableKind` bound of `Stream::reset_event`.
use aclrt::{Acl, ExSync, HostMode, SyncOnly, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let event = stream.record(ctx.create_event_of::<ExSync>()?)?;
        let event = stream.record(event)?; // re-record instead of reset
        event.synchronize()?;
        assert!(event.is_complete()?);
        let sync_only = stream.record(ctx.create_event_of::<SyncOnly>()?)?;
        sync_only.synchronize()?;
        let sync_only = stream.reset_event(sync_only)?; // aclrtResetEvent
        let sync_only = stream.record(sync_only)?;
        sync_only.synchronize()?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
