// Misuse: destroy a context while device memory allocated in it is still live.
// Why it must not compile: the context owns its allocations; freeing or copying the buffer afterwards would use a destroyed context.
// Enforced by: `DeviceBuffer<'ctx, 'id, T>` borrows its `Context` for `'ctx`, and `Context::destroy(self)` needs to move it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buffer = ctx.alloc::<u32>(8)?;
    ctx.destroy()?;
    buffer.free()?;
    Ok(())
}
