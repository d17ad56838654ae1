// Right way: destroy the stream before resetting the device of its (default) context.
// Why it compiles: once the stream is destroyed nothing borrows the default context, which is a view with no drop code, so the device is free to move.
// Enforced by: `Stream<'ctx, 'id>` borrows its context, which borrows the `Device`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let stream = ctx.create_stream()?;
    stream.synchronize()?;
    assert!(stream.is_complete()?);
    stream.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
