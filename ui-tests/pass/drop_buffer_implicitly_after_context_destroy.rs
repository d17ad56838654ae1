// Right way: let the buffer go (explicitly or at the end of an inner block) before the context is destroyed.
// Why it compiles: the buffer's borrow of the context ends when the buffer is dropped, before `destroy`.
// Enforced by: the raw allocation inside `DeviceBuffer<'ctx, 'id, T>` has a `Drop` impl that uses `'ctx`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    {
        let scratch = ctx.alloc_from(&[3u32; 8])?;
        let mut back = [0u32; 8];
        ctx.copy(&scratch, &mut back)?;
        assert_eq!(back, [3; 8]);
    } // dropped here: aclrtFree
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
