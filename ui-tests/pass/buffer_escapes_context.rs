// Right way: let the data, not the buffer, leave the context's scope (download it to ordinary host memory).
// Why it compiles: the `Vec` that leaves the block borrows nothing; the buffer and the context end inside the block.
// Enforced by: `DeviceBuffer<'ctx, 'id, T>` borrows its `Context` for `'ctx`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let values = {
        let ctx = device.create_context(guard)?;
        let buffer = ctx.alloc_from(&[1.0f32, 2.0, 3.0, 4.0])?;
        let mut values = vec![0.0f32; 4];
        ctx.download(&buffer, &mut values)?;
        buffer.free()?;
        ctx.destroy()?;
        values
    };
    assert_eq!(values, [1.0, 2.0, 3.0, 4.0]);
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
