// Misuse: destroy a device's default context (`aclrtDestroyContext` on the context `aclrtSetDevice` created).
// Why it must not compile: the default context is owned by the device and released only by `aclrtResetDevice`.
// Enforced by: `DefaultContext::destroy` exists only to explain the rule: it requires `Destroyable`, a trait with no implementation; and `Deref` only lends `&Context`, so `Context::destroy(self)` cannot move it out.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    ctx.destroy()?;
    Ok(())
}
