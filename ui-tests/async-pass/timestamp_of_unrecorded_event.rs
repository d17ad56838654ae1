// Right way: record the time-line event on a stream and synchronise it before reading its timestamp.
// Why it compiles: `Stream::record` turns `Event<.., ExTimeLine, Unrecorded>` into `Event<.., ExTimeLine, Recorded>`.
// Enforced by: the state parameter `S` of `Event<'ctx, 'id, K, S>` and the `IsRecorded` bound of `Event::timestamp`.
use aclrt::{Acl, ExTimeLine, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let event = stream.record(ctx.create_event_of::<ExTimeLine>()?)?;
        event.synchronize()?;
        let at = event.timestamp()?; // µs since the device booted
        let again = stream.record(event)?;
        again.synchronize()?;
        assert!(again.timestamp()? >= at, "timestamps are monotonic");
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
