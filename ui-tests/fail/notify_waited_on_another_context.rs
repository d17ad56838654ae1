// Misuse: wait for a notify of context A (device A) on a stream of context B.
// Why it must not compile: a notify is bound to the device it was created on; a stream of another device cannot wait for it.
// Enforced by: the invariant brand `'id`: `Stream<'_, 'b>::wait_notify` only takes `&Notify<'_, 'b>`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device.create_context(guard_a)?;
    let ctx_b = device.create_context(guard_b)?;
    let notify_a = ctx_a.create_notify()?;
    let stream_b = ctx_b.create_stream()?;
    stream_b.wait_notify(&notify_a)?;
    Ok(())
}
