// Right way: after handing a buffer to lane B, queue further work on it on B (or hand it back with another signal).
// Why it compiles: the buffer moves A → B → A as one value, each move ordered by an event.
// Enforced by: `Lane::signal` consumes the `InFlight`; `Lane::wait_for` gives a new one to the waiting lane.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream_a = ctx.create_stream()?;
        let stream_b = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
        let mut shared = ctx.alloc::<u32>(3)?;
        let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
        ctx.scope(|s| {
            make_guard!(a);
            make_guard!(b);
            let a = s.lane(&stream_a, a);
            let b = s.lane(&stream_b, b);
            let produced = a.copy(&input, &mut shared)?;
            let on_b = b.wait_for(a.signal(produced)?)?;
            let zeroed = b.memset(on_b, 0)?; // B owns it now
            let back_on_a = a.wait_for(b.signal(zeroed)?)?; // and hands it back
            let out = a.copy(&back_on_a, &mut output)?.wait()?;
            assert_eq!(out.as_slice(), [0, 0, 0]);
            Ok(())
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
