// Right way: record and wait for a scope's notify on lanes of that same scope (a nested scope takes its own).
// Why it compiles: the `ScopeNotify` and the lanes carry the same `'scope`.
// Enforced by: `ScopeNotify<'scope, 'id>` is invariant in `'scope`; `Lane::wait_notify` takes a `ScopeNotify` of the lane's own `'scope`.
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
    ctx.scope(|inner| {
        let n = inner.notify(&mut notify)?;
        inner.with_lane(&a, |lane| {
            lane.record_notify(n)?;
            lane.wait_notify(n)
        })
    })?;
    drop(notify);
    drop((a, b));
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
