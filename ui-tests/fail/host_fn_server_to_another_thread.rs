// Misuse: process a stream's host functions from a thread other than the one that subscribed to serve them.
// Why it must not compile: the runtime serves the subscribing thread only; another thread's `aclrtProcessHostFunc` serves nothing (107012) or another subscription.
// Enforced by: `HostFnServer` is neither `Send` nor `Sync` (it holds the marker `aclrt::marker::ThreadBound`), so `&HostFnServer` cannot cross into a spawned thread.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    stream.serve_host_fns(|server| {
        std::thread::scope(|s| {
            s.spawn(|| server.process(std::time::Duration::from_millis(1)));
        })
    })?;
    Ok(())
}
