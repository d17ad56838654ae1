// Right way: record the end event too (here on a lane, inside a scope) before timing.
// Why it compiles: `Lane::record` returns `Event<.., Timing, Recorded>`, which has `elapsed_since`.
// Enforced by: `impl<K: TimingKind, S: IsRecorded> Event<'_, '_, K, S> { fn elapsed_since }`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&vec![1.5f32; 4096])?;
        let mut on_device = ctx.alloc::<f32>(4096)?;
        let start = stream.record(ctx.create_event()?)?;
        let end = ctx.create_event()?;
        let ms = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _d = lane.copy(&input, &mut on_device)?;
            let end = lane.record(end)?; // now `Recorded`
            end.synchronize()?;
            end.elapsed_since(&start)
        })?;
        assert!(ms >= 0.0, "elapsed {ms} ms");
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
