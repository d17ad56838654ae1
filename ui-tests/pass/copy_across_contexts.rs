// Right way: copy into a buffer on the context that allocated it.
// Why it compiles: buffer and context carry the same brand `'a`.
// Enforced by: the invariant brand `'id` (from `make_guard!`) on contexts and their memory.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device.create_context(guard_a)?;
    let ctx_b = device.create_context(guard_b)?;
    let mut buffer_a = ctx_a.alloc::<f32>(2)?;
    ctx_a.copy(&[1.0f32, 2.0], &mut buffer_a)?;
    let mut buffer_b = ctx_b.alloc::<f32>(2)?;
    ctx_b.copy(&[3.0f32, 4.0], &mut buffer_b)?;
    let (mut back_a, mut back_b) = ([0.0f32; 2], [0.0f32; 2]);
    ctx_a.copy(&buffer_a, &mut back_a)?;
    ctx_b.copy(&buffer_b, &mut back_b)?;
    assert_eq!((back_a, back_b), ([1.0, 2.0], [3.0, 4.0]));
    buffer_b.free()?;
    buffer_a.free()?;
    ctx_b.destroy()?;
    ctx_a.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
