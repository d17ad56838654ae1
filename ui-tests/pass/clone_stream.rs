// Right way: share one stream by reference (`&Stream`), or create a second stream.
// Why it compiles: borrowing does not duplicate ownership; each owned `Stream` is destroyed exactly once.
// Enforced by: `Stream` is neither `Clone` nor `Copy`.
use aclrt::{Acl, HostMode, Stream, make_guard};

fn wait(stream: &Stream<'_, '_>) -> Result<bool, aclrt::Error> {
    stream.synchronize()?;
    stream.is_complete()
}

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let shared = &stream;
    assert!(wait(shared)?);
    assert!(wait(&stream)?);
    let second = ctx.create_stream()?;
    assert_ne!(second.as_raw(), stream.as_raw());
    second.destroy()?;
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
