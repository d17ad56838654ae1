// Right way: record and wait for a notify on streams of its own context.
// Why it compiles: notify and streams carry the same brand.
// Enforced by: the invariant brand `'id` on `Notify<'ctx, 'id>` and `Stream<'ctx, 'id>`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    let ctx_a = device.create_context(guard_a)?;
    let notify_a = ctx_a.create_notify()?;
    let (producer, consumer) = (ctx_a.create_stream()?, ctx_a.create_stream()?);
    consumer.wait_notify(&notify_a)?;
    producer.record_notify(&notify_a)?;
    consumer.synchronize()?;
    drop(notify_a);
    drop((producer, consumer));
    ctx_a.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
