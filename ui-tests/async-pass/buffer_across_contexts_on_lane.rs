// Right way: each context's buffers go to lanes of that context's scope; data crosses contexts through the host.
// Why it compiles: every operand of a lane carries the lane's brand.
// Enforced by: the invariant brand `'id` in `AsyncSource` / `AsyncDest<'scope, 'id, 'sid>`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(ga);
        make_guard!(gb);
        let ctx_a = device.create_context(ga)?;
        let ctx_b = device.create_context(gb)?;
        let stream_a = ctx_a.create_stream()?;
        let stream_b = ctx_b.create_stream()?;
        let input_b = ctx_b.alloc_host_from(&[1u32, 2, 3])?;
        let mut staging_b = ctx_b.alloc_host_zeroed::<u32>(3)?;
        let mut on_device_b = ctx_b.alloc::<u32>(3)?;
        let mut on_device_a = ctx_a.alloc::<u32>(3)?;
        ctx_b.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream_b, l);
            let d = lane.copy(&input_b, &mut on_device_b)?;
            let _back = lane.copy(&d, &mut staging_b)?;
            Ok(())
        })?;
        let input_a = ctx_a.alloc_host_from(&staging_b)?; // through the host
        ctx_a.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream_a, l);
            let _d = lane.copy(&input_a, &mut on_device_a)?;
            Ok(())
        })?;
        let mut back = [0u32; 3];
        ctx_a.copy(&on_device_a, &mut back)?;
        assert_eq!(back, [1, 2, 3]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
