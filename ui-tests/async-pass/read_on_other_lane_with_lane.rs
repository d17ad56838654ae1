// Right way: with closure-branded lanes, hand the buffer from lane A to lane B (`signal` / `wait_for`) before B reads it.
// Why it compiles: `wait_for` makes B wait for the event recorded on A after the copy and re-brands the `InFlight` for B.
// Enforced by: `Scope::with_lane`, `Lane::signal`, `Lane::wait_for`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let (stream_a, stream_b) = (ctx.create_stream()?, ctx.create_stream()?);
        aclrt::sim::set_stream_delay(stream_a.as_raw(), std::time::Duration::from_millis(10));
        let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
        let mut shared = ctx.alloc::<u32>(3)?;
        let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
        ctx.scope(|s| {
            s.with_lane(&stream_a, |a| {
                let produced = a.copy(&input, &mut shared)?; // slow on A
                let signal = a.signal(produced)?;
                s.with_lane(&stream_b, |b| {
                    let produced = b.wait_for(signal)?;
                    let out = b.copy(&produced, &mut output)?.wait()?;
                    assert_eq!(out.as_slice(), [1, 2, 3]);
                    Ok(())
                })
            })
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
