// Misuse: write managed memory from the host while an asynchronous copy that reads it may be in flight.
// Why it must not compile: the device may still be reading the pages; the host write races with it (and the documented host-access rules during device use are unknown).
// Enforced by: `Lane::copy` borrows the `ManagedBuffer` for the rest of the scope; `ManagedBuffer::as_mut_slice` needs `&mut`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let mut managed = ctx.alloc_managed::<u32>(256)?;
    let mut on_device = ctx.alloc::<u32>(256)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _x = lane.copy(&managed, &mut on_device)?;
        managed.as_mut_slice()[0] = 1;
        Ok(())
    })?;
    Ok(())
}
