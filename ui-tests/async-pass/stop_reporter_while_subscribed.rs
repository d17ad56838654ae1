// Right way: unsubscribe (or drop the subscription) before stopping the reporter.
// Why it compiles: the subscription's borrow of the reporter has ended.
// Enforced by: `Subscription<'r, ..>` borrowing the `Reporter`.
use aclrt::{Acl, HostMode, Reporter, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let sub = reporter.subscribe(&stream)?;
    sub.launch(|| {})?;
    sub.unsubscribe()?;
    reporter.stop()?;
    stream.synchronize()?;
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
