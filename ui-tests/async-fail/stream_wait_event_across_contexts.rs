// Misuse: outside a scope, make a stream of context A wait for an event recorded in context B.
// Why it must not compile: `aclrtStreamWaitEvent` is for streams and events of one context (and device); a foreign event is a wrong-context error or an ordering that does not hold.
// Enforced by: `Stream::wait_event` takes `&Event<'_, 'id, K, S>` with the stream's own brand `'id`; the two `make_guard!` brands differ.
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
    stream_a.wait_event(&event_b)?;
    Ok(())
}
