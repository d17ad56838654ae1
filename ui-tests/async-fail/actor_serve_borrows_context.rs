// Misuse: start a device actor whose `serve` borrows a context made outside it (the context's brand would go to a thread that may outlive it).
// Why it must not compile: the actor thread is detached: it may run after the context, its device and the runtime are gone.
// Enforced by: `actor::spawn` takes `serve: FnOnce(Inbox) -> .. + Send + 'static` (E0597); own the device inside `serve`, or use `actor::spawn_scoped`.
use aclrt::actor::{self, ActorConfig, Shutdown};
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (handle, actor) = actor::spawn(ActorConfig::default(), |mut inbox| {
        let stream = ctx.create_stream()?;
        while let Some(batch) = inbox.next_batch() {
            let (reqs, replies) = batch.into_parts();
            stream.synchronize()?;
            replies.send(reqs);
        }
        Ok::<(), aclrt::Error>(())
    })
    .expect("the actor thread");
    let _ = aclrt::future::block_on(handle.call(1u32));
    actor.shutdown(Shutdown::Drain)?;
    Ok(())
}
