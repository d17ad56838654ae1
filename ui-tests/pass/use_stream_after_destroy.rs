// Right way: finish using a stream, then destroy it last.
// Why it compiles: every use comes before the consuming `Stream::destroy(self)`.
// Enforced by: `Stream::destroy(self)` consumes the stream.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    stream.synchronize()?;
    assert!(stream.is_complete()?);
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
