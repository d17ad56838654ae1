// Right way: end the subscription, then destroy the stream.
// Why it compiles: the subscription's borrow of the stream has ended.
// Enforced by: `Subscription<'_, 's, ..>` borrowing the `Stream`.
use aclrt::{Acl, HostMode, Reporter, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let sub = reporter.subscribe(&stream)?;
    drop(sub);
    reporter.stop()?;
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
