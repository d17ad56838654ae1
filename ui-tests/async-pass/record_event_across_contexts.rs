// Right way: record an event of a context on a lane of the same context.
// Why it compiles: `Lane<'_, '_, 'id, '_, _>::record` gets an `Event<'_, 'id, ..>` of the same brand.
// Enforced by: the invariant brand `'id`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(ga);
        make_guard!(gb);
        let ctx_a = device.create_context(ga)?;
        let ctx_b = device.create_context(gb)?;
        let stream_b = ctx_b.create_stream()?;
        let event_a = ctx_a.create_event()?;
        let event_b = ctx_b.create_event()?;
        let recorded = ctx_b.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream_b, l);
            lane.record(event_b)
        })?;
        recorded.synchronize()?;
        assert!(recorded.is_complete()?);
        drop(event_a);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
