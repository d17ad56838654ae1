// Right way: destroy what was made through the device, then force-reset it through its last handle.
// Why it compiles: `Context::destroy(self)` ends the context's borrow of the `Device`.
// Enforced by: `Context<'dev, 'id, M>` borrows the `Device`; `Device::reset_force(self)`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    {
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        ctx.destroy()?;
    }
    device.reset_force()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
