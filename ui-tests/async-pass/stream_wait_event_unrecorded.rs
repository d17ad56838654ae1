// Right way: record the event on the producing stream first, then make the consuming stream wait for it outside a scope.
// Why it compiles: `Stream::record` returns an `Event<.., Recorded>`, which satisfies `IsRecorded`.
// Enforced by: the `S: IsRecorded` bound of `Stream::wait_event`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let producer = ctx.create_stream()?;
    let consumer = ctx.create_stream()?;
    let event = producer.record(ctx.create_event()?)?;
    consumer.wait_event(&event)?;
    consumer.synchronize()?;
    assert!(event.is_complete()?);
    event.destroy()?;
    consumer.destroy()?;
    producer.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
