// Misuse: keep the host-function server of `Stream::serve_host_fns` after its closure returned (and the stream was unsubscribed).
// Why it must not compile: processing on a thread that no longer serves the stream would wait for host functions it never gets, and the server could outlive the stream.
// Enforced by: `serve_host_fns` lends `&HostFnServer<'s>` for a higher-ranked `'s` (`F: for<'s> FnOnce(&HostFnServer<'s>) -> R`), so the reference cannot be returned.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let server = stream.serve_host_fns(|server| server)?;
    let _ = server.process(std::time::Duration::from_millis(1));
    Ok(())
}
