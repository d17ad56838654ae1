// Right way: free pinned host memory before resetting the device.
// Why it compiles: `HostBuffer::free(self)` ends the buffer's borrow of the context (and so of the device).
// Enforced by: `HostBuffer<'ctx, 'id, T, M>` borrows its context, which borrows the `Device`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let pinned = ctx.alloc_host_zeroed::<f32>(16)?;
    assert_eq!(pinned[0], 0.0);
    pinned.free()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
