// Misuse: return a scope's notify hand-off (`ScopeNotify`) out of the scope, to wait for it later.
// Why it must not compile: after the scope's end no ledger counts the waits it would queue, and the scope's mutable borrow of the notify has ended.
// Enforced by: `ScopeNotify<'scope, 'id>` carries the scope's invariant `'scope`, which cannot outlive the scope's closure.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut notify = ctx.create_notify()?;
    let escaped = ctx.scope(|s| s.notify(&mut notify))?;
    println!("{escaped:?}");
    Ok(())
}
