// Right way: destroy an event waited on inside a scope after the scope, with `destroy()` to see its error.
// Why it compiles: the `'scope` borrow taken by `Lane::wait_event` has ended.
// Enforced by: `Lane::wait_event(&'scope Event<..>)` and `Event::destroy(self)`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let producer = ctx.create_stream()?;
        let consumer = ctx.create_stream()?;
        let event = producer.record(ctx.create_event()?)?;
        let mut ran = false;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&consumer, l);
            lane.wait_event(&event)?;
            lane.host_fn(|| ran = true)?;
            Ok(())
        })?;
        event.destroy()?; // aclrtDestroyEvent, errors reported
        assert!(ran);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
