// Right way: across contexts, let the host wait for the other context's event (`Event::synchronize`); within one context, `Stream::wait_event`.
// Why it compiles: the event waited for by a stream carries that stream's brand; the host may synchronise on any recorded event.
// Enforced by: the shared brand `'id` of `Stream::wait_event`'s receiver and argument.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device.create_context(guard_a)?;
    let ctx_b = device.create_context(guard_b)?;
    let stream_a = ctx_a.create_stream()?;
    let stream_b = ctx_b.create_stream()?;
    let event_b = stream_b.record(ctx_b.create_event()?)?;
    event_b.synchronize()?; // the host waits for context B
    let event_a = stream_a.record(ctx_a.create_event()?)?;
    let other_a = ctx_a.create_stream()?;
    other_a.wait_event(&event_a)?; // same context: fine
    other_a.synchronize()?;
    event_a.destroy()?;
    event_b.destroy()?;
    other_a.destroy()?;
    stream_b.destroy()?;
    stream_a.destroy()?;
    ctx_b.destroy()?;
    ctx_a.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
