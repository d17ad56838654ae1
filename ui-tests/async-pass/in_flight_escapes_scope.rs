// Right way: let the scope finish the async work; use the buffer after `Context::scope` returns.
// Why it compiles: nothing borrowed for `'scope` leaves the closure; the scope synchronises before returning.
// Enforced by: `Context::scope`'s `for<'scope>` closure bound.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
        let mut on_device = ctx.alloc::<u32>(3)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _d = lane.copy(&input, &mut on_device)?; // dropped: still synchronised by the scope
            Ok(())
        })?;
        let mut back = [0u32; 3];
        ctx.copy(&on_device, &mut back)?;
        assert_eq!(back, [1, 2, 3]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
