// Misuse: reset a device (`aclrtResetDevice`) while an explicit context created on it still lives.
// Why it must not compile: the release order is contexts before their device; the context handle would dangle.
// Enforced by: `Context<'dev, 'id, M>` borrows its `Device` for `'dev`, and `Device::reset(self)` needs to move it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    device.reset()?;
    ctx.destroy()?;
    Ok(())
}
