// Misuse: synchronize a stream after destroying it explicitly.
// Why it must not compile: the stream handle is invalid after `aclrtDestroyStream`.
// Enforced by: `Stream::destroy(self)` consumes the `Stream` (it is not `Copy`), so later uses are uses of a moved value.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    stream.destroy()?;
    stream.synchronize()?;
    Ok(())
}
