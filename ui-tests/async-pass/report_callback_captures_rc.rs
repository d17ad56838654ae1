// Right way: share with a report callback through an `Arc`.
// Why it compiles: `Arc<u32>` is `Send + 'static`.
// Enforced by: the `F: Send + 'static` bound of `Subscription::launch_blocking`.
use std::sync::Arc;
use aclrt::{Acl, HostMode, Reporter, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let shared = Arc::new(5u32);
    {
        let sub = reporter.subscribe(&stream)?;
        let mine = Arc::clone(&shared);
        sub.launch_blocking(move || assert_eq!(*mine, 5))?;
        stream.synchronize()?;
    }
    assert_eq!(Arc::strong_count(&shared), 1);
    reporter.stop()?;
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
