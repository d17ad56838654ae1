// Misuse: destroy a context while one of its notifies lives.
// Why it must not compile: the notify is a resource of the context; destroying its context first leaves a dangling handle.
// Enforced by: `Notify<'ctx, 'id>` borrows its `Context`; `Context::destroy(self)` needs it unborrowed.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let notify = ctx.create_notify()?;
    ctx.destroy()?;
    println!("{}", notify.id()?);
    Ok(())
}
