// Right way: drop an event waited on inside a scope only after the scope has returned.
// Why it compiles: the `'scope` borrow taken by `Lane::wait_event` ends when the scope has synchronised.
// Enforced by: `Lane::wait_event(&'scope Event<..>)`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let producer = ctx.create_stream()?;
        let consumer = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[4u32, 5, 6])?;
        let mut on_device = ctx.alloc::<u32>(3)?;
        let event = producer.record(ctx.create_event()?)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&consumer, l);
            lane.wait_event(&event)?;
            let _d = lane.copy(&input, &mut on_device)?;
            Ok(())
        })?;
        drop(event); // the wait is over
        let mut back = [0u32; 3];
        ctx.copy(&on_device, &mut back)?;
        assert_eq!(back, [4, 5, 6]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
