// Misuse: force-destroy a stream (`aclrtDestroyStreamForce`, which drops queued tasks without waiting) while a scope has borrowed buffers queued on it.
// Why it must not compile: the dropped or still-running tasks may touch the borrowed buffers after the scope gave them back.
// Enforced by: a `Lane` borrows its `Stream` for the scope; `Stream::destroy_force(self)` needs to move it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_zeroed::<u32>(256)?;
    let mut on_device = ctx.alloc::<u32>(256)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _x = lane.copy(&input, &mut on_device)?;
        stream.destroy_force()?;
        Ok(())
    })?;
    Ok(())
}
