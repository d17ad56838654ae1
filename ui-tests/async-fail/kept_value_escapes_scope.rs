// Misuse: return a value kept by the scope (`Scope::keep`) out of the scope.
// Why it must not compile: kept values are dropped when the scope ends; the reference would dangle.
// Enforced by: `Scope::keep` lends for `'scope`, which the closure's result type cannot name.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let event = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let ev = s.keep(lane.record(ctx.create_event()?)?);
        Ok(ev)
    })?;
    event.synchronize()?;
    Ok(())
}
