// Misuse: destroy a context (`aclrtDestroyContext`) while a stream created in it still lives.
// Why it must not compile: streams must be destroyed before their context; the stream handle would dangle.
// Enforced by: `Stream<'ctx, 'id>` borrows its `Context` for `'ctx`, and `Context::destroy(self)` needs to move it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    ctx.destroy()?;
    stream.destroy()?;
    Ok(())
}
