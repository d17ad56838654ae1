// Misuse: allocate in a context after destroying it explicitly.
// Why it must not compile: the context handle is invalid after `aclrtDestroyContext`.
// Enforced by: `Context::destroy(self)` consumes the `Context` (it is not `Copy`), so later uses are uses of a moved value.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    ctx.destroy()?;
    let buffer = ctx.alloc::<u8>(64)?;
    buffer.free()?;
    Ok(())
}
