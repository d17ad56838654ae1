// Right way: time with `Timing` events (`Context::create_event`); use `SyncOnly` events only to synchronise.
// Why it compiles: `Timing: TimingKind`; `SyncOnly` events are still fine for `synchronize`.
// Enforced by: the kind parameter `K` of `Event<'ctx, 'id, K, S>` and the `TimingKind` bound of `elapsed_since`.
use aclrt::{Acl, HostMode, SyncOnly, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let start = stream.record(ctx.create_event()?)?;
        let done = stream.record(ctx.create_event_of::<SyncOnly>()?)?;
        let end = stream.record(ctx.create_event()?)?;
        done.synchronize()?;
        end.synchronize()?;
        let ms = end.elapsed_since(&start)?;
        assert!(ms >= 0.0, "elapsed {ms} ms");
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
