// Misuse: destroy a context's default stream (`aclrtDestroyStream` on the NULL/default stream).
// Why it must not compile: the default stream belongs to the runtime and can never be destroyed by the application.
// Enforced by: `DefaultStream::destroy` exists only to explain the rule: it requires `Destroyable`, a trait with no implementation; and `Deref` only lends `&Stream`, so `Stream::destroy(self)` cannot move it out.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.default_stream()?;
    stream.destroy()?;
    Ok(())
}
