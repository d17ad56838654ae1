// Misuse: device memory allocated in a context is kept in a variable that outlives the context's scope.
// Why it must not compile: the context is destroyed at the end of its scope; the buffer would then be freed in a dead context.
// Enforced by: `DeviceBuffer<'ctx, 'id, T>` borrows its `Context` for `'ctx`, which ends with the context's scope.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let buffer;
    {
        let ctx = device.create_context(guard)?;
        buffer = ctx.alloc::<f32>(4)?;
    }
    assert_eq!(buffer.len(), 4);
    Ok(())
}
