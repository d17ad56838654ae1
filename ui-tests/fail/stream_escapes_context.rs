// Misuse: a function creates a context, makes a stream in it and returns the stream, dropping (destroying) the context.
// Why it must not compile: the returned stream would belong to a context that no longer exists.
// Enforced by: `Stream<'ctx, 'id>` borrows the local `Context` for `'ctx`, so it cannot be returned past the context's end.
use aclrt::{Acl, Device, Guard, HostMode, Stream, make_guard};

fn open_stream<'dev, 'id: 'dev>(
    device: &'dev Device<'_, HostMode>,
    guard: Guard<'id>,
) -> Result<Stream<'dev, 'id>, aclrt::Error> {
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    Ok(stream)
}

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let stream = open_stream(&device, guard)?;
    stream.synchronize()?;
    Ok(())
}
