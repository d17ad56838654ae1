// Right way: move the owner only after the registration ended.
// Why it compiles: after `unregister` nothing borrows the owner any more.
// Enforced by: `HostRegistration<'ctx, 'a, 'id, T, M>` holds the `&'a mut [T]` borrow until it ends.
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    {
        make_guard!(guard);
        let ctx = device.default_context(guard);
        let mut user = PageAlignedBuf::<u32>::zeroed(1024)?;
        let mut reg = ctx.register_host(&mut user)?;
        reg.as_mut_slice()[0] = 7;
        reg.unregister()?;
        let first = std::thread::spawn(move || user[0]).join().unwrap();
        assert_eq!(first, 7);
    }
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
