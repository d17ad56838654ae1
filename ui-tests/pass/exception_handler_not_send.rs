// Right way: an exception handler shares its state through `Arc` and atomics.
// Why it compiles: the closure is `Send + Sync + 'static`, so the runtime's thread may call it while the program reads the state.
// Enforced by: `Acl::on_exception` requires `F: Fn(&ExceptionInfo) + Send + Sync + 'static`.
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use aclrt::Acl;

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let seen = Arc::new(AtomicI32::new(0));
    let mine = seen.clone();
    let handler = acl.on_exception(move |info| mine.store(info.error_code(), Ordering::SeqCst))?;
    handler.unregister()?;
    assert_eq!(seen.load(Ordering::SeqCst), 0);
    acl.finalize()?;
    Ok(())
}
