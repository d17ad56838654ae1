// Right way: lane B reads what lane A wrote only after `signal` / `wait_for`.
// Why it compiles: `wait_for` orders B after A's event and gives B an `InFlight` of its own brand, an `AsyncSource` of B.
// Enforced by: `Signal<'scope, 'a, D>` and `Lane::wait_for`.
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
        let input = ctx.alloc_host_from(&(0..1024u32).collect::<Vec<_>>())?;
        let mut shared = ctx.alloc::<u32>(1024)?;
        let mut output = ctx.alloc_host_zeroed::<u32>(1024)?;
        ctx.scope(|s| {
            make_guard!(a);
            make_guard!(b);
            let a = s.lane(&stream_a, a);
            let b = s.lane(&stream_b, b);
            let produced = a.copy(&input, &mut shared)?;
            let signal = a.signal(produced)?; // aclrtRecordEvent on A
            let handed = b.wait_for(signal)?; // aclrtStreamWaitEvent on B
            let out = b.copy(&handed, &mut output)?.wait()?;
            assert!(out.iter().enumerate().all(|(i, v)| v == i as u32));
            Ok(())
        })?;
        assert_eq!(output[1023], 1023);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
