// Misuse: make a stream of device 1 wait (`aclrtStreamWaitEvent`) for an event of device 0.
// Why it must not compile: an event belongs to its context (and device); the runtime rejects or mis-orders a wait across them.
// Enforced by: the invariant brand `'id`: `Lane<'_, '_, 'id, '_, _>::wait_event` takes `&Event<'_, 'id, ..>` of the same brand only.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    let device0 = rt.device(0)?;
    let device1 = rt.device(1)?;
    make_guard!(g0);
    make_guard!(g1);
    let ctx0 = device0.create_context(g0)?;
    let ctx1 = device1.create_context(g1)?;
    let stream0 = ctx0.create_stream()?;
    let stream1 = ctx1.create_stream()?;
    let event0 = stream0.record(ctx0.create_event()?)?;
    ctx1.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream1, l);
        lane.wait_event(&event0)?; // event of device 0 on a stream of device 1
        Ok(())
    })?;
    Ok(())
}
