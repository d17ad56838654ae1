// Misuse: write a pinned host buffer on the CPU while an async copy into it may still be running.
// Why it must not compile: the device and the CPU would write the same memory concurrently; which value wins is unspecified (a data race).
// Enforced by: `Lane::copy` keeps the `&'scope mut` borrow of the destination inside the returned `InFlight` until the scope ends (E0499).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let on_device = ctx.alloc_from(&[1u32, 2, 3])?;
    let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _out = lane.copy(&on_device, &mut output)?;
        output[0] = 7; // the D2H copy may still be writing here
        Ok(())
    })?;
    Ok(())
}
