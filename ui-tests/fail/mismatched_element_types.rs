// Misuse: copy `f32` host data into a device buffer of `u32`.
// Why it must not compile: a raw byte copy between different element types reinterprets the bits silently.
// Enforced by: `Context::copy` requires `D: MemoryMut<'id, Elem = S::Elem>`: source and destination element types must be equal.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut target = ctx.alloc::<u32>(3)?;
    ctx.copy(&[1.0f32, 2.0, 3.0], &mut target)?;
    Ok(())
}
