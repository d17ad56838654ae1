// Misuse: split a device buffer, queue work on one half, then use the whole buffer.
// Why it must not compile: the whole buffer overlaps the half the device may still be writing.
// Enforced by: `DeviceBuffer::split_at_mut` borrows the buffer mutably for as long as the halves are used, and an async destination borrows its half for the rest of the scope (E0502).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let mut dev = ctx.alloc::<u8>(64)?;
    let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let (lo, _hi) = dev.split_at_mut(32)?;
        let _ = lane.memset(lo, 1)?;
        let _ = lane.copy(&dev, &mut out)?; // overlaps the half in flight
        Ok(())
    })?;
    Ok(())
}
