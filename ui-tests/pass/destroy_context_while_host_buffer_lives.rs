// Right way: finish with (and free) the pinned host memory, then destroy its context.
// Why it compiles: `HostBuffer::free(self)` ends the buffer's borrow of the context.
// Enforced by: `HostBuffer<'ctx, 'id, T, M>` borrows its `Context` for `'ctx`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let pinned = ctx.alloc_host_from(&[1u32, 2, 3])?;
    assert_eq!(pinned.as_slice(), [1, 2, 3]);
    pinned.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
