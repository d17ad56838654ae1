// Right way: the caller owns the context; a helper borrows it and returns a stream tied to that borrow.
// Why it compiles: the returned `Stream<'c, 'id>` borrows a context that outlives the call.
// Enforced by: `Stream<'ctx, 'id>` borrows its `Context` for `'ctx`.
use aclrt::{Acl, Context, HostMode, Stream, make_guard};

fn open_stream<'c, 'id>(
    ctx: &'c Context<'_, 'id, HostMode>,
) -> Result<Stream<'c, 'id>, aclrt::Error> {
    let stream = ctx.create_stream()?;
    Ok(stream)
}

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = open_stream(&ctx)?;
    stream.synchronize()?;
    assert!(stream.is_complete()?);
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
