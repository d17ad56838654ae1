// Misuse: allocate a buffer inside the scope closure and use it as the destination of async work.
// Why it must not compile: the buffer is freed when the closure returns, before the scope synchronises the stream; the copy would write freed memory.
// Enforced by: `AsyncDest` is implemented for `&'scope mut D`; a closure-local buffer does not live for `'scope` (E0597).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let mut on_device = ctx.alloc::<u32>(3)?; // freed at the end of the closure
        let _d = lane.copy(&input, &mut on_device)?;
        Ok(())
    })?;
    Ok(())
}
