// Misuse: reset a device while a stream created in its default context still lives.
// Why it must not compile: the release order is streams, then contexts, then the device; the stream handle would dangle.
// Enforced by: `Stream<'ctx, 'id>` borrows its context, which borrows the `Device`; `Device::reset(self)` needs to move it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let stream = ctx.create_stream()?;
    device.reset()?;
    stream.synchronize()?;
    Ok(())
}
