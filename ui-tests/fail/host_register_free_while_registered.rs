// Misuse: free user memory (drop its owner) while it is registered for the device with `aclrtHostRegister`.
// Why it must not compile: the runtime (and the device, through the alias) may access registered memory until `aclrtHostUnregister`; freeing it first is undefined behaviour.
// Enforced by: `HostRegistration<'ctx, 'a, 'id, T, M>` holds the `&'a mut [T]` it was made from until it is dropped or unregistered.
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let mut user = PageAlignedBuf::<f32>::zeroed(1024)?;
    let reg = ctx.register_host(&mut user)?;
    drop(user);
    reg.unregister()?;
    Ok(())
}
