// Right way: use kept values inside the scope; move out what must outlive it instead of keeping it.
// Why it compiles: an event recorded inside the scope and returned by value outlives the scope; a kept one is used only inside it.
// Enforced by: the closure returns owned values; `keep` lends for `'scope` only.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let event = ctx.scope(|s| {
            make_guard!(ga);
            make_guard!(gb);
            let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
            let kept = s.keep(la.record(ctx.create_event()?)?);
            lb.wait_event(kept)?; // waits need the scope's lifetime: kept
            la.record(ctx.create_event()?) // returned by value
        })?;
        event.synchronize()?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
