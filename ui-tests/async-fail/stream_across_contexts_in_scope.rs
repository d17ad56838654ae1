// Misuse: enlist a stream of context A as a lane of a scope of context B.
// Why it must not compile: the scope binds context B before queuing work; a stream of context A is "not in the current context" (error 107003).
// Enforced by: the invariant brand `'id`: `Scope<'_, '_, 'id, _>::lane` takes `&Stream<'_, 'id>` of the same brand only.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(ga);
    make_guard!(gb);
    let ctx_a = device.create_context(ga)?;
    let ctx_b = device.create_context(gb)?;
    let stream_a = ctx_a.create_stream()?;
    ctx_b.scope(|s| {
        make_guard!(l);
        let _lane = s.lane(&stream_a, l); // stream of context A in a scope of B
        Ok(())
    })?;
    Ok(())
}
