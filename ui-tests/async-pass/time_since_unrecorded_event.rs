// Right way: record both timing events, synchronise the later one, then measure.
// Why it compiles: both events are `Event<.., Timing, Recorded>`.
// Enforced by: `Event::elapsed_since` needs `K: TimingKind` and `IsRecorded` on both events.
use std::time::Duration;

use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let start = stream.record(ctx.create_event()?)?;
        stream.launch_host_fn(|| std::thread::sleep(Duration::from_millis(20)))?;
        let end = stream.record(ctx.create_event()?)?;
        end.synchronize()?;
        let ms = end.elapsed_since(&start)?;
        assert!(ms >= 0.0, "elapsed {ms} ms");
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
