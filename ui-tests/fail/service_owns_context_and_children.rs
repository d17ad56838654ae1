// Misuse: long-lived state as one struct that owns a `Context` together with a stream made through it, built and returned by a function.
// Why it must not compile: the stream borrows the context owned by the same value; moving or dropping that value could release the context first (a self-referential struct).
// Enforced by: `Stream<'ctx, 'id>` borrows its `Context` for `'ctx` (E0515: returns a value referencing data owned by the function).
use aclrt::{Acl, Context, Device, HostMode, Stream, make_guard};

struct Service<'dev, 'id> {
    ctx: Context<'dev, 'id, HostMode>,
    stream: Stream<'dev, 'id>,
}

fn start<'dev, 'id: 'dev>(device: &'dev Device<'_, HostMode>, guard: aclrt::Guard<'id>) -> aclrt::Result<Service<'dev, 'id>> {
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    Ok(Service { ctx, stream })
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let service = start(&device, guard)?;
    service.stream.synchronize()?;
    drop(service.ctx);
    Ok(())
}
