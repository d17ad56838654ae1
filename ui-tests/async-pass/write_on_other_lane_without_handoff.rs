// Right way: hand the buffer from lane A to lane B with `signal` / `wait_for` before B writes it.
// Why it compiles: `wait_for` makes B wait for the event recorded on A (`aclrtStreamWaitEvent`) and re-brands the `InFlight` for B.
// Enforced by: `Signal<'scope, 'a, D>` and `Lane::wait_for`, which returns `InFlight<'scope, 'b, D>`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream_a = ctx.create_stream()?;
        let stream_b = ctx.create_stream()?;
        aclrt::sim::set_stream_delay(stream_a.as_raw(), std::time::Duration::from_millis(20));
        let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
        let ones = ctx.alloc_host_from(&[1u32, 1, 1])?;
        let mut shared = ctx.alloc::<u32>(3)?;
        let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
        ctx.scope(|s| {
            make_guard!(a);
            make_guard!(b);
            let a = s.lane(&stream_a, a);
            let b = s.lane(&stream_b, b);
            let produced = a.copy(&input, &mut shared)?; // slow on A
            let handed = b.wait_for(a.signal(produced)?)?;
            let again = b.copy(&ones, handed)?; // runs after A's copy
            let _out = b.copy(&again, &mut output)?;
            Ok(())
        })?;
        assert_eq!(output.as_slice(), [1, 1, 1], "B's write came last");
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
