// Right way: share data with a host function through an `Arc` (or a plain borrow from outside the scope).
// Why it compiles: `Arc<T>` is `Send` when `T: Send + Sync`.
// Enforced by: the `F: Send` bound of `Lane::host_fn`.
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let shared = Arc::new(vec![1u32, 2, 3]);
        let seen = AtomicUsize::new(0);
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let mine = Arc::clone(&shared);
            let seen = &seen;
            lane.host_fn(move || seen.store(mine.len(), Ordering::SeqCst))?; // owns its `Arc`
            Ok(())
        })?;
        assert_eq!(seen.load(Ordering::SeqCst), 3);
        assert_eq!(
            Arc::strong_count(&shared),
            1,
            "the host function's clone was dropped"
        );
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
