// Misuse: read a buffer while a future of an awaited wait (`InFlight::wait_async`) holds it, before awaiting it.
// Why it must not compile: the copy into it may still be running; the future gives the `&mut` back only once the lane's work is over.
// Enforced by: `Lane::copy` borrows the destination for `'scope`; the future owns the `InFlight`, so the buffer stays borrowed (E0502).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let mut on_device = ctx.alloc::<u32>(3)?;
    let mut back = ctx.alloc_host_zeroed::<u32>(3)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let d = lane.copy(&input, &mut on_device)?;
        let pending = lane.copy(&d, &mut back)?.wait_async();
        let early = back.as_slice()[0]; // read while the D2H copy may run
        let back = aclrt::future::block_on(pending)?;
        assert_eq!(back.as_slice()[0], early);
        Ok(())
    })?;
    Ok(())
}
