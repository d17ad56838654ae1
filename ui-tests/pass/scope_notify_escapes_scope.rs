// Right way: use a scope's notify hand-off inside the scope; afterwards, use the `Notify` itself.
// Why it compiles: the `ScopeNotify` stays inside the closure that gave it.
// Enforced by: `ScopeNotify<'scope, 'id>` carries the scope's invariant `'scope`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let mut notify = ctx.create_notify()?;
    ctx.scope(|s| {
        let n = s.notify(&mut notify)?;
        println!("{n:?}");
        s.with_lane(&stream, |lane| {
            lane.record_notify(n)?;
            lane.wait_notify(n)
        })
    })?;
    assert!(notify.id().is_ok());
    drop(notify);
    drop(stream);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
