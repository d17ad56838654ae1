// Misuse: keep queueing work on stream A with a buffer that was already handed to stream B.
// Why it must not compile: B only waits for A's work up to the event; later work on A would race with B's.
// Enforced by: `Lane::signal` takes the `InFlight` by value (it is not `Copy`): using it again is E0382.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream_a = ctx.create_stream()?;
    let stream_b = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let mut shared = ctx.alloc::<u32>(3)?;
    ctx.scope(|s| {
        make_guard!(a);
        make_guard!(b);
        let a = s.lane(&stream_a, a);
        let b = s.lane(&stream_b, b);
        let produced = a.copy(&input, &mut shared)?;
        let signal = a.signal(produced)?;
        let _handed = b.wait_for(signal)?;
        let _late = a.memset(produced, 0)?; // after the hand-off
        Ok(())
    })?;
    Ok(())
}
