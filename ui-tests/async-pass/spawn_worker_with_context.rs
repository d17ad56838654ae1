// Right way: workers are scoped threads (`std::thread::scope`) that borrow the context; the scope joins them before it ends.
// Why it compiles: scoped threads accept non-`'static` borrows; `Context` is `Sync`.
// Enforced by: `std::thread::scope`'s lifetime; `Context: Send + Sync` (asserted in the crate).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    std::thread::scope(|t| {
        let workers: Vec<_> = (0..2)
            .map(|_| t.spawn(|| ctx.create_stream().and_then(|s| s.destroy())))
            .collect();
        workers.into_iter().try_for_each(|w| w.join().unwrap())
    })?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
