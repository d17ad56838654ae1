// Misuse: destroy a stream from inside the closure that serves its host functions.
// Why it must not compile: the stream is still subscribed to this thread; its unsubscription (after the closure) would name a destroyed stream.
// Enforced by: `Stream::serve_host_fns(&self, ..)` borrows the stream for the whole call, so `Stream::destroy(self)` cannot move it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    stream.serve_host_fns(|_server| stream.destroy())??;
    Ok(())
}
