// Misuse: move the future of an awaited wait to another thread (as `tokio::spawn` would) and poll it there.
// Why it must not compile: the future carries the scope's brand and book, which only the scope's thread may use; the scope may end first.
// Enforced by: `InFlightWait` is neither `Send` nor `'static` (it holds the scope's `!Sync` book), so `std::thread::spawn` rejects it (E0277).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let mut on_device = ctx.alloc::<u32>(3)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let pending = lane.copy(&input, &mut on_device)?.wait_async();
        std::thread::spawn(move || aclrt::future::block_on(pending).map(|_| ()));
        Ok(())
    })?;
    Ok(())
}
