// Right way: read a context's overflow status on a stream of that context.
// Why it compiles: the context and the stream carry the same brand.
// Enforced by: the invariant brand `'id` shared by the `Context` and the `Stream` argument.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    let ctx_a = device.create_context(guard_a)?;
    let stream_a = ctx_a.create_stream()?;
    stream_a.reset_overflow_status()?;
    let status = ctx_a.overflow_status(&stream_a)?;
    assert!(status.is_clear());
    drop(stream_a);
    ctx_a.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
