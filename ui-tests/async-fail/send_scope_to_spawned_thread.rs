// Misuse: move a `Scope` reference into a detached `std::thread::spawn` thread.
// Why it must not compile: the thread may outlive the scope (it is synchronised and gone when `Context::scope` returns), and the scope is single-threaded.
// Enforced by: `&'scope Scope` is neither `'static` nor `Send` (`Scope: !Sync`).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    ctx.scope(|s| {
        let handle = std::thread::spawn(move || {
            println!("{:?}", s);
        });
        let _ = handle.join();
        Ok(())
    })?;
    Ok(())
}
