// Right way: queue all async work inside the scope closure; return only owned results.
// Why it compiles: the closure's result (`u32`) does not mention `'scope`.
// Enforced by: `Context::scope`'s `for<'scope> FnOnce(&'scope Scope<'scope, ..>) -> Result<R>`.
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
        let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
        let sum = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let d = lane.copy(&input, &mut on_device)?;
            let out = lane.copy(&d, &mut output)?.wait()?;
            Ok(out.iter().sum::<u32>())
        })?;
        assert_eq!(sum, 6);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
