// Right way: use the default stream and simply let it go; the runtime releases it with its context.
// Why it compiles: only a `Stream` from `create_stream` is destroyed explicitly; `DefaultStream` is a view that is never destroyed.
// Enforced by: `DefaultStream` (a `destroy` that cannot be called, `Deref<Target = Stream>` only).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let default_stream = ctx.default_stream()?;
    default_stream.synchronize()?;
    assert!(default_stream.is_complete()?);
    let own = ctx.create_stream()?;
    own.synchronize()?;
    own.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
