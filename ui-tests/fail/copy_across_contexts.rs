// Misuse: use device memory of context A as the destination of a copy issued on context B.
// Why it must not compile: memory belongs to the context that allocated it; the runtime checks the copy against context B.
// Enforced by: the invariant brand `'id` (from `make_guard!`): `Context<'_, 'b, M>::copy` only accepts `MemoryMut<'b>`, and a buffer of context A is `MemoryMut<'a>` only.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device.create_context(guard_a)?;
    let ctx_b = device.create_context(guard_b)?;
    let mut buffer_a = ctx_a.alloc::<f32>(2)?;
    ctx_b.copy(&[1.0f32, 2.0], &mut buffer_a)?;
    Ok(())
}
