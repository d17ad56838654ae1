// Misuse: destroy a context while pinned host memory allocated in it is still live.
// Why it must not compile: the pinned allocation belongs to the context; reading or freeing it afterwards would use a destroyed context.
// Enforced by: `HostBuffer<'ctx, 'id, T, M>` borrows its `Context` for `'ctx`, and `Context::destroy(self)` needs to move it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let pinned = ctx.alloc_host_from(&[1u32, 2, 3])?;
    ctx.destroy()?;
    assert_eq!(pinned.as_slice(), [1, 2, 3]);
    Ok(())
}
