// Right way: wait for a SYNC event (`ExSync`) on the stream, and watch the producer's progress with the progress event (`is_complete` / `synchronize`).
// Why it compiles: `ExSync` carries `ACL_EVENT_SYNC` and implements `WaitableKind`; a progress event is only queried or synchronised.
// Enforced by: `Stream::wait_event` requires `K: WaitableKind`.
use aclrt::{Acl, ExProgress, ExSync, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let producer = ctx.create_stream()?;
        let consumer = ctx.create_stream()?;
        let progress = producer.record(ctx.create_event_of::<ExProgress>()?)?;
        let ready = producer.record(ctx.create_event_of::<ExSync>()?)?;
        consumer.wait_event(&ready)?;
        consumer.synchronize()?;
        progress.synchronize()?;
        assert!(progress.is_complete()?);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
