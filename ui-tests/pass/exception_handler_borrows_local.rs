// Right way: the handler owns what it uses (an `Arc` moved in).
// Why it compiles: the closure is `'static`, so it may live as long as the crate keeps it registered, even past a forgotten guard.
// Enforced by: `Acl::on_exception` requires the closure to be `'static`.
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use aclrt::Acl;

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let count = Arc::new(AtomicU32::new(0));
    let mine = count.clone();
    let handler = acl.on_exception(move |_| {
        mine.fetch_add(1, Ordering::SeqCst);
    })?;
    handler.unregister()?;
    assert_eq!(count.load(Ordering::SeqCst), 0);
    acl.finalize()?;
    Ok(())
}
