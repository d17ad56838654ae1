// Right way: keep your own data outside the scope and borrow it; keep only aclrt values made inside.
// Why it compiles: data declared before `Context::scope` outlives the scope, and a `DeviceBuffer` made inside can be kept.
// Enforced by: `aclrt::bounds::Keep` is implemented for `DeviceBuffer`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let mine = vec![1u8, 2, 3];
        let stream = ctx.create_stream()?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let buf = s.keep(ctx.alloc_from(&mine)?);
            let _ = lane.memset(buf, 0)?;
            Ok(())
        })?;
        assert_eq!(mine.len(), 3);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
