// Right way: unregister first, then resize; register page-aligned memory (`PageAlignedBuf`), since a `Vec` is not page-aligned.
// Why it compiles: the registration's borrow ends with `unregister`; a misaligned `Vec` is refused at run time with `Error::NotPageAligned`.
// Enforced by: `HostRegistration<'ctx, 'a, 'id, T, M>` keeps the memory mutably borrowed; `Context::register_host` checks the alignment.
use aclrt::{Acl, Error, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    {
        make_guard!(guard);
        let ctx = device.default_context(guard);
        let mut user = vec![0u8; 8192];
        match ctx.register_host(&mut user[1..]) {
            Err(Error::NotPageAligned { .. }) => {}
            other => panic!("expected NotPageAligned, got {other:?}"),
        }
        user.push(1);
        let mut pages = PageAlignedBuf::<u8>::from_slice(&user)?;
        let reg = ctx.register_host(&mut pages)?;
        reg.unregister()?;
        let mut grown = pages.to_vec();
        grown.push(2);
        assert_eq!(grown.len(), 8193 + 1);
    }
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
