// Right way: record the scope's notify on a lane of the scope; outside the scope, record the notify once the scope has ended.
// Why it compiles: the scope's mutable borrow of the notify ends with the scope.
// Enforced by: `Scope::notify` borrows the `Notify` mutably for `'scope`; `Stream::record_notify` needs `&Notify`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut notify = ctx.create_notify()?;
    ctx.scope(|s| {
        let n = s.notify(&mut notify)?;
        s.with_lane(&b, |lane| lane.wait_notify(n))?;
        s.with_lane(&a, |lane| lane.record_notify(n))
    })?;
    a.record_notify(&notify)?;
    b.wait_notify(&notify)?;
    b.synchronize()?;
    drop(notify);
    drop((a, b));
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
