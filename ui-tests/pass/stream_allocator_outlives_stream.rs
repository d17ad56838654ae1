// Right way: end the allocator's registration, then destroy its stream.
// Why it compiles: the registration's borrow of the stream ends with `unregister` (or its drop).
// Enforced by: `StreamAllocator<'s>` borrows the `Stream`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let allocator = stream.register_allocator(1 << 20)?;
    assert_eq!(allocator.bytes(), 0);
    allocator.unregister()?;
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
