// Misuse: destroy a stream inside the scope after enlisting it as a lane.
// Why it must not compile: the scope synchronises every enlisted stream before returning; it would synchronise a destroyed handle.
// Enforced by: `Scope::lane` borrows the stream for `'scope`; `Stream::destroy(self)` cannot move it while borrowed (E0505).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
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
        stream.destroy()?; // the scope still has to synchronise it
        Ok(())
    })?;
    Ok(())
}
