// Right way: drop the notify, then destroy its context.
// Why it compiles: the notify's borrow of the context ends first.
// Enforced by: `Notify<'ctx, 'id>` borrows its `Context`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let notify = ctx.create_notify()?;
    let _id = notify.id()?;
    drop(notify);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
