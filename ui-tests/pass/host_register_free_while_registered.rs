// Right way: unregister (or drop the registration) first, then free the memory.
// Why it compiles: `HostRegistration::unregister(self)` ends the registration's borrow of the memory.
// Enforced by: `HostRegistration<'ctx, 'a, 'id, T, M>` holds the `&'a mut [T]` it was made from.
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    {
        make_guard!(guard);
        let ctx = device.default_context(guard);
        let mut user = PageAlignedBuf::<f32>::zeroed(1024)?;
        let reg = ctx.register_host(&mut user)?;
        assert_eq!(reg.len(), 1024);
        reg.unregister()?;
        drop(user);
    }
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
