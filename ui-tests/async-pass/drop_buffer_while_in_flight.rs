// Right way: free a buffer used by async work after the scope, which has synchronised its streams.
// Why it compiles: the `'scope` borrow of `on_device` ends when `Context::scope` returns, after the synchronisation.
// Enforced by: `Lane::copy` borrows its operands for `'scope`.
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
            let _d = lane.copy(&input, &mut on_device)?;
            Ok(())
        })?;
        let mut back = [0u32; 3];
        ctx.copy(&on_device, &mut back)?;
        assert_eq!(back, [1, 2, 3]);
        on_device.free()?; // aclrtFree: nothing is in flight any more
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
