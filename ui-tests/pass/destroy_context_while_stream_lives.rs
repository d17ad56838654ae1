// Right way: destroy the stream, then its context.
// Why it compiles: `Stream::destroy(self)` ends the stream's borrow of the context.
// Enforced by: `Stream<'ctx, 'id>` borrows its `Context` for `'ctx`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    stream.synchronize()?;
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
