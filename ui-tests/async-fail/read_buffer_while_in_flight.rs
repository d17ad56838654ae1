// Misuse: read a pinned host buffer on the CPU while an async copy into it may still be running.
// Why it must not compile: `aclrtMemcpyAsync` returns at once; the CPU would read memory the device is still writing (a data race).
// Enforced by: `Lane::copy` takes `&'scope mut` of the destination and keeps it inside the returned `InFlight` until the scope ends (E0502).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let mut on_device = ctx.alloc::<u32>(3)?;
    let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let d = lane.copy(&input, &mut on_device)?;
        let _out = lane.copy(&d, &mut output)?;
        assert_eq!(output[0], 1); // the D2H copy may still be in flight
        Ok(())
    })?;
    Ok(())
}
