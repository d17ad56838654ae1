// Right way: a report callback owns what it uses (here an `Arc<AtomicU32>` moved in).
// Why it compiles: the closure is `Send + 'static`.
// Enforced by: the `F: FnOnce() + Send + 'static` bound of `Subscription::launch`.
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use aclrt::{Acl, HostMode, Reporter, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let count = Arc::new(AtomicU32::new(0));
    {
        let sub = reporter.subscribe(&stream)?;
        let c = Arc::clone(&count);
        sub.launch(move || {
            c.fetch_add(1, Ordering::SeqCst);
        })?;
        let c = Arc::clone(&count);
        sub.launch_blocking(move || {
            c.fetch_add(1, Ordering::SeqCst);
        })?;
        stream.synchronize()?;
        sub.unsubscribe()?;
    }
    assert_eq!(count.load(Ordering::SeqCst), 2);
    reporter.stop()?;
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
