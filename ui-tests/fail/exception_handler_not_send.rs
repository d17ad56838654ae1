// Misuse: register an exception handler whose closure holds an `Rc` (not `Send`, not `Sync`).
// Why it must not compile: the runtime calls the handler on a thread of its own, possibly while the program's threads touch the same `Rc`: a data race on its count.
// Enforced by: `Acl::on_exception` requires `F: Fn(&ExceptionInfo) + Send + Sync + 'static`.
use std::rc::Rc;

use aclrt::Acl;

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let seen = Rc::new(core::cell::Cell::new(0u32));
    let mine = seen.clone();
    let handler = acl.on_exception(move |info| mine.set(info.error_code() as u32))?;
    handler.unregister()?;
    drop(seen);
    Ok(())
}
