// Misuse: return the future of an awaited wait out of the scope's closure, to await it after the scope.
// Why it must not compile: the future holds the buffer's `'scope` borrow and the scope's lane; after the scope both are gone.
// Enforced by: `InFlightWait<'scope, ..>` names the scope's lifetime, which the closure's result cannot (lifetime error).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let mut on_device = ctx.alloc::<u32>(3)?;
    let pending = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        Ok(lane.copy(&input, &mut on_device)?.wait_async())
    })?;
    let _ = aclrt::future::block_on(pending);
    Ok(())
}
