// Misuse: register an exception handler whose closure borrows a local variable.
// Why it must not compile: the handler is the crate's until it is unregistered, and a forgotten guard (`mem::forget`) keeps it registered for ever: the borrow would dangle when the runtime calls it.
// Enforced by: `Acl::on_exception` requires the closure to be `'static`.
use std::sync::atomic::{AtomicU32, Ordering};

use aclrt::Acl;

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let count = AtomicU32::new(0);
    let handler = acl.on_exception(|_| {
        count.fetch_add(1, Ordering::SeqCst);
    })?;
    handler.unregister()?;
    Ok(())
}
