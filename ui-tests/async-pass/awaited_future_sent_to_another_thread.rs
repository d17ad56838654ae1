// Right way: poll the scope's futures on the scope's thread; `'static` tasks on other threads reach the device through the actor's handle.
// Why it compiles: `aclrt::actor::Handle` is `Send + Clone + 'static` (a channel to the thread that owns the scope); the scope's future stays home.
// Enforced by: `Handle<Req, Rep>: Send + Sync + 'static`; `InFlightWait` is `!Send`.
use aclrt::actor::{self, ActorConfig, Shutdown};
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
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
            aclrt::future::block_on(pending)?;
            Ok(())
        })?;
        // A `'static` task on another thread: a handle, not the scope.
        let (handle, actor) = actor::spawn(ActorConfig::default(), |mut inbox| {
            while let Some(batch) = inbox.next_batch() {
                let (reqs, replies) = batch.into_parts();
                replies.send(reqs.into_iter().map(|x: u32| x * 2));
            }
            Ok::<(), aclrt::Error>(())
        })
        .expect("the actor thread");
        let doubled = std::thread::spawn(move || aclrt::future::block_on(handle.call(21)))
            .join()
            .expect("the caller thread");
        assert_eq!(doubled, Ok(42));
        actor.shutdown(Shutdown::Drain)?;
        stream.destroy()?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
