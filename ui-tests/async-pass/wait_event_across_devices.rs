// Right way: across devices, block the host on device 0's event; inside a scope of device 1, wait only for device 1's events.
// Why it compiles: `Event::synchronize` works from any thread and context; `Lane::wait_event` gets an event of its own context.
// Enforced by: the invariant brand `'id` on `Event<'_, 'id, ..>` and `Lane<'_, '_, 'id, '_, _>`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let rt = acl.require::<HostMode>()?;
        let device0 = rt.device(0)?;
        let device1 = rt.device(1)?;
        make_guard!(g0);
        make_guard!(g1);
        let ctx0 = device0.create_context(g0)?;
        let ctx1 = device1.create_context(g1)?;
        let stream0 = ctx0.create_stream()?;
        let stream1 = ctx1.create_stream()?;
        let side = ctx1.create_stream()?;
        let event0 = stream0.record(ctx0.create_event()?)?;
        event0.synchronize()?; // device 0's work is done, seen from the host
        let event1 = side.record(ctx1.create_event()?)?;
        let input = ctx1.alloc_host_from(&[7u32, 8])?;
        let mut on_device = ctx1.alloc::<u32>(2)?;
        ctx1.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream1, l);
            lane.wait_event(&event1)?; // same context: fine
            let _d = lane.copy(&input, &mut on_device)?;
            Ok(())
        })?;
        let mut back = [0u32; 2];
        ctx1.copy(&on_device, &mut back)?;
        assert_eq!(back, [7, 8]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
