// Misuse: read the overflow status of one context on a stream of another (`Context::overflow_status`).
// Why it must not compile: the status is copied by a task of the stream into device memory the context allocated; a stream of another context (another device, possibly) would write memory it cannot address.
// Enforced by: the invariant brand `'id` shared by the `Context` and the `Stream` argument.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    let ctx_a = device.create_context(guard_a)?;
    make_guard!(guard_b);
    let ctx_b = device.create_context(guard_b)?;
    let stream_b = ctx_b.create_stream()?;
    let status = ctx_a.overflow_status(&stream_b)?;
    println!("{status:?}");
    Ok(())
}
