// Right way: the service struct borrows the context (kept by the caller) and owns what it made through it.
// Why it compiles: the stream borrows a context that outlives the struct, not one inside it.
// Enforced by: `Stream<'ctx, 'id>` borrowing `Context`; see the guide chapter "Structuring an application".
use aclrt::{Acl, Context, HostMode, Stream, make_guard};

struct Service<'ctx, 'id> {
    ctx: &'ctx Context<'ctx, 'id, HostMode>,
    stream: Stream<'ctx, 'id>,
}

fn start<'ctx, 'id>(ctx: &'ctx Context<'ctx, 'id, HostMode>) -> aclrt::Result<Service<'ctx, 'id>> {
    Ok(Service { ctx, stream: ctx.create_stream()? })
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    {
        let service = start(&ctx)?;
        let buf = service.ctx.alloc_from(&[1u8, 2])?;
        service.stream.synchronize()?;
        drop(buf);
        service.stream.destroy()?;
    }
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
