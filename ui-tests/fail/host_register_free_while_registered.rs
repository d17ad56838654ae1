// Misuse: free user memory (drop its owner) while it is registered for the device with `aclrtHostRegister`.
// Why it must not compile: while the registration can be used, work queued on it (and device code, through the alias) may access the memory until `aclrtHostUnregister`, and the runtime's documentation allows no freeing before it; freeing it then would be undefined behaviour. (A forgotten registration is different: nothing can use it any more, and its entry is leaked; see `HostRegistration`'s "Leaks".)
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
