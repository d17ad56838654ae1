// Right way: take each notify once per scope and copy its handle (`ScopeNotify` is `Copy`); a second hand-off takes a second notify.
// Why it compiles: each `Notify` is borrowed mutably once for the scope.
// Enforced by: `Scope::notify` borrows the `Notify` mutably for `'scope`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let (mut first, mut second) = (ctx.create_notify()?, ctx.create_notify()?);
    ctx.scope(|s| {
        let n1 = s.notify(&mut first)?;
        let n2 = s.notify(&mut second)?;
        let copy = n1;
        s.with_lane(&a, |la| {
            s.with_lane(&b, |lb| {
                lb.wait_notify(copy)?;
                la.record_notify(n1)?;
                la.wait_notify(n2)?;
                lb.record_notify(n2)
            })
        })
    })?;
    drop((first, second));
    drop((a, b));
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
