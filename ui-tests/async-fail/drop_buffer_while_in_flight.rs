// Misuse: free (drop) a device buffer inside the scope while an async copy into it may still be running.
// Why it must not compile: `aclrtFree` does not wait for queued work; the copy would write freed memory.
// Enforced by: `Lane::copy` borrows the destination for `'scope`, which lasts until the scope has synchronised; moving it out is E0505.
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
        drop(on_device); // aclrtFree while the H2D copy may be in flight
        Ok(())
    })?;
    Ok(())
}
