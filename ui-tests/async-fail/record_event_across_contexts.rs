// Misuse: record (`aclrtRecordEvent`) an event of context A on a lane of context B.
// Why it must not compile: an event belongs to the context it was created in; recording it on another context's stream is rejected by the runtime.
// Enforced by: the invariant brand `'id`: `Lane<'_, '_, 'id, '_, _>::record` takes `Event<'_, 'id, ..>` of the same brand only.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(ga);
    make_guard!(gb);
    let ctx_a = device.create_context(ga)?;
    let ctx_b = device.create_context(gb)?;
    let stream_b = ctx_b.create_stream()?;
    let event_a = ctx_a.create_event()?;
    ctx_b.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream_b, l);
        let _recorded = lane.record(event_a)?; // event of context A
        Ok(())
    })?;
    Ok(())
}
