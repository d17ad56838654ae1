// Misuse: return a `Lane` out of the scope closure and queue work on it afterwards.
// Why it must not compile: after `Context::scope` returns, nothing synchronises that stream before the borrowed buffers die (use after free).
// Enforced by: the closure is `for<'scope> FnOnce(&'scope Scope<'scope, ..>)`: its result type cannot mention `'scope`, and `Lane<'scope, ..>` does.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let mut on_device = ctx.alloc::<u32>(3)?;
    make_guard!(l);
    let lane = ctx.scope(|s| Ok(s.lane(&stream, l)))?;
    let _d = lane.copy(&input, &mut on_device)?; // the scope is over
    Ok(())
}
