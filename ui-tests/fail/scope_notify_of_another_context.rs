// Misuse: give a scope the notify of another context (`Scope::notify`).
// Why it must not compile: a notify is recorded and waited for on streams of its own device; the scope's lanes are streams of the scope's context.
// Enforced by: `Scope::notify` takes a `Notify` with the scope's context brand `'id`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    let ctx_a = device.create_context(guard_a)?;
    make_guard!(guard_b);
    let ctx_b = device.create_context(guard_b)?;
    let mut notify_b = ctx_b.create_notify()?;
    ctx_a.scope(|s| s.notify(&mut notify_b).map(drop))?;
    Ok(())
}
