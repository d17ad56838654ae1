// Right way: destroy the explicit context before resetting its device.
// Why it compiles: `Context::destroy(self)` ends the context's borrow of the `Device`, so `Device::reset(self)` can move it.
// Enforced by: `Context<'dev, 'id, M>` borrows its `Device` for `'dev`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    assert_eq!(ctx.device_id()?, 0);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
