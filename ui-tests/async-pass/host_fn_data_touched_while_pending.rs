// Right way: read data a host function writes after the scope (or share it through an atomic).
// Why it compiles: the host function's `&mut count` borrow ends when the scope has synchronised; an `AtomicU32` is shared, not borrowed mutably.
// Enforced by: the `F: Send + 'scope` bound of `Lane::host_fn`.
use std::sync::atomic::{AtomicU32, Ordering};

use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let mut count = 0u32;
        let ticks = AtomicU32::new(0);
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            lane.host_fn(|| count += 1)?;
            lane.host_fn(|| {
                ticks.fetch_add(1, Ordering::SeqCst);
            })?;
            lane.synchronize()?;
            assert_eq!(ticks.load(Ordering::SeqCst), 1); // shared safely
            Ok(())
        })?;
        assert_eq!(count, 1);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
