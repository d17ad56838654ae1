// Misuse: wait on a lane of a nested scope for a notify the outer scope holds (`Scope::notify`).
// Why it must not compile: the outer scope counts the records and waits of its notify to release a wait no record can end; a wait queued by another scope is outside that count, and the inner scope's end would wait for a record the outer body queues only after it.
// Enforced by: `ScopeNotify<'scope, 'id>` is invariant in `'scope`, and `Lane::wait_notify` takes a `ScopeNotify` of the lane's own `'scope`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let mut notify = ctx.create_notify()?;
    ctx.scope(|outer| {
        let n = outer.notify(&mut notify)?;
        ctx.scope(|inner| inner.with_lane(&b, |lane| lane.wait_notify(n)))?;
        outer.with_lane(&a, |lane| lane.record_notify(n))
    })?;
    Ok(())
}
