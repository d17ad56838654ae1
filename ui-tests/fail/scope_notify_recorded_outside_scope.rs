// Misuse: record, on a stream outside the scope, a notify the scope holds as a hand-off (`Scope::notify`).
// Why it must not compile: the scope counts every record and wait of its notify to tell a wait no record can end (the failure rule); a record outside the scope would end a wait the scope then aborts, or set the flag a lane's wait was to get from its own record.
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
        a.record_notify(&notify)
    })?;
    Ok(())
}
