// Right way: destroy a stream used by a scope after the scope has returned.
// Why it compiles: the `'scope` borrow taken by `Scope::lane` has ended.
// Enforced by: `Scope::lane(&'scope self, &'scope Stream<'_, 'id>, Guard<'sid>)`.
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
        stream.destroy()?; // aclrtDestroyStream
        let mut back = [0u32; 3];
        ctx.copy(&on_device, &mut back)?;
        assert_eq!(back, [1, 2, 3]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
