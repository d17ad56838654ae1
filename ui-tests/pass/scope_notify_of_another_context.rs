// Right way: give a scope a notify of its own context.
// Why it compiles: the notify and the scope carry the same brand `'id`.
// Enforced by: `Scope::notify` takes a `Notify` with the scope's context brand `'id`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    let ctx_a = device.create_context(guard_a)?;
    let mut notify_a = ctx_a.create_notify()?;
    ctx_a.scope(|s| s.notify(&mut notify_a).map(drop))?;
    drop(notify_a);
    ctx_a.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
