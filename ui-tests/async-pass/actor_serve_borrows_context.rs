// Right way: a device actor on a thread of a thread scope (`actor::spawn_scoped`), whose `serve` borrows the runtime and makes its context; a handle used after the actor is gone gets a clear error.
// Why it compiles: the scoped thread ends before the runtime it borrows; the `Handle` holds no borrow (a channel), so it may outlive the actor.
// Enforced by: `spawn_scoped` takes `serve: .. + 's` for the thread scope `'s`; `ActorError::ShutDown` / `Gone` after the actor.
use aclrt::actor::{self, ActorConfig, ActorError, Shutdown};
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    let handle = std::thread::scope(|ts| {
        let (handle, actor) = actor::spawn_scoped(ts, ActorConfig::default(), move |mut inbox| {
            let device = rt.device(0)?;
            make_guard!(guard);
            let ctx = device.create_context(guard)?;
            let stream = ctx.create_stream()?;
            while let Some(batch) = inbox.next_batch() {
                let (reqs, replies) = batch.into_parts();
                stream.synchronize()?;
                replies.send(reqs);
            }
            stream.destroy()?;
            ctx.destroy()?;
            device.reset()
        })
        .expect("the actor thread");
        assert_eq!(aclrt::future::block_on(handle.call(1u32)), Ok(1));
        actor.shutdown(Shutdown::Drain)?;
        Ok::<_, aclrt::Error>(handle)
    })?;
    // The device is gone: a clear error, no hang.
    assert_eq!(aclrt::future::block_on(handle.call(2)), Err(ActorError::ShutDown));
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
