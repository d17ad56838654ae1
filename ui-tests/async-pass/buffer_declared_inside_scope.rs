// Right way: allocate buffers used by async work before the scope; inside it, use only synchronous copies on closure-local buffers.
// Why it compiles: a buffer declared before `Context::scope` outlives `'scope`.
// Enforced by: `AsyncDest` for `&'scope mut D`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
        let mut on_device = ctx.alloc::<u32>(3)?; // outlives the scope
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let d = lane.copy(&input, &mut on_device)?;
            let d = d.wait()?;
            let mut local = ctx.alloc::<u32>(3)?; // closure-local: synchronous use only
            ctx.copy(&*d, &mut local)?;
            let mut back = [0u32; 3];
            ctx.copy(&local, &mut back)?;
            assert_eq!(back, [1, 2, 3]);
            Ok(())
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
