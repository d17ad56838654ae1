// Misuse: grow a `Vec` (which may reallocate it) while its memory is registered for the device.
// Why it must not compile: a reallocation frees the registered pages under the runtime, which still maps them (undefined behaviour).
// Enforced by: `Context::register_host(&mut [T])` returns a `HostRegistration<'ctx, 'a, 'id, T, M>` that keeps the `Vec` mutably borrowed.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let mut user = vec![0u8; 8192];
    let reg = ctx.register_host(&mut user)?;
    user.push(1);
    reg.unregister()?;
    Ok(())
}
