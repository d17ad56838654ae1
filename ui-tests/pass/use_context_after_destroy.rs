// Right way: allocate and free in a context before destroying it.
// Why it compiles: every use comes before the consuming `Context::destroy(self)`.
// Enforced by: `Context::destroy(self)` consumes the context.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buffer = ctx.alloc::<u8>(64)?;
    assert_eq!(buffer.len(), 64);
    buffer.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
