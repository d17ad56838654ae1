// Misuse: make a lane of another scope (here one nested in the mark's scope, or one on another thread: `Mark` is `Send`) wait for a `Mark` of this scope.
// Why it must not compile: a scope that aborts its streams (a deadline, `Context::scope_with_timeout`) discards the mark's record; the lanes of that scope are aborted with it, but a lane of another scope would wait for the record for ever.
// Enforced by: `Mark<'scope, 'id, 'sid>` is invariant in `'scope`, and `Lane::wait_mark` takes only marks of its own scope.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let (x, y) = (ctx.create_stream()?, ctx.create_stream()?);
        ctx.scope(|s1| {
            make_guard!(a);
            let a = s1.lane(&x, a);
            let mark = a.mark()?;
            ctx.scope(|s2| {
                make_guard!(b);
                let b = s2.lane(&y, b);
                b.wait_mark(mark)?;
                Ok(())
            })
        })?;
    }
    acl.finalize()?;
    Ok(())
}
