// Misuse: take the same notify twice for one scope (`Scope::notify`), to hand both handles out as if they were two notifies.
// Why it must not compile: a scope holds each notify exclusively, so that every record and wait of it in this process while the scope is open is one its ledger counts; two handles of one notify would let waits on one be matched by records the scope believes are of another.
// Enforced by: `Scope::notify` borrows the `Notify` mutably for `'scope`, the scope's whole life (E0499).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut notify = ctx.create_notify()?;
    ctx.scope(|s| {
        let first = s.notify(&mut notify)?;
        let second = s.notify(&mut notify)?;
        println!("{first:?} {second:?}");
        Ok(())
    })?;
    Ok(())
}
