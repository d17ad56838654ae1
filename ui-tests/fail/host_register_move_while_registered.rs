// Misuse: move registered memory's owner to another thread (which may free it) while it is registered.
// Why it must not compile: the other thread could drop or reallocate the memory while the runtime still maps it.
// Enforced by: `HostRegistration<'ctx, 'a, 'id, T, M>` holds the `&'a mut [T]` borrow of the owner, so the owner cannot be moved.
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let mut user = PageAlignedBuf::<u32>::zeroed(1024)?;
    let reg = ctx.register_host(&mut user)?;
    std::thread::spawn(move || drop(user)).join().unwrap();
    reg.unregister()?;
    Ok(())
}
