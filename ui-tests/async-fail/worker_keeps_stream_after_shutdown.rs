// Misuse: a worker thread stores a borrowed stream in state that outlives the service's thread scope (kept "for later" after shutdown).
// Why it must not compile: after shutdown the stream (and its context) are released; a stream kept past that would be used after destruction.
// Enforced by: the scoped thread's borrow of the service ends with `std::thread::scope`; the outer `Vec` outlives it (E0521 / E0597).
use std::sync::Mutex;
use aclrt::{Acl, HostMode, Stream, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    let kept: Mutex<Vec<&Stream<'_, '_>>> = Mutex::new(Vec::new());
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    {
        let stream = ctx.create_stream()?;
        std::thread::scope(|t| {
            t.spawn(|| kept.lock().unwrap().push(&stream));
        });
    }
    kept.lock().unwrap()[0].synchronize()?;
    Ok(())
}
