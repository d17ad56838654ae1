// Misuse: overwrite the source of an async copy on the CPU while the copy may still be reading it.
// Why it must not compile: the device would read a mix of old and new values (a data race).
// Enforced by: `AsyncSource` is implemented for `&'scope S` only: the source stays shared-borrowed until the scope has synchronised (E0502).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let mut input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let mut on_device = ctx.alloc::<u32>(3)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let d = lane.copy(&input, &mut on_device)?;
        let _ = d.wait()?; // waiting for the destination does not release the source borrow
        input[0] = 9;
        Ok(())
    })?;
    Ok(())
}
