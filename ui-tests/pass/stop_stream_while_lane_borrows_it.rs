// Right way: stop a stream outside every scope that uses it, holding it exclusively.
// Why it compiles: after the scope the lane's borrow has ended, so `&mut stream` is available; the modelled chips answer "not supported", which is a typed error.
// Enforced by: `Stream::stop` takes `&mut self`, and the lane borrows the stream for the whole scope.
use aclrt::{Acl, ErrorKind, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut stream = ctx.create_stream()?;
    let mut buf = ctx.alloc::<u8>(64)?;
    ctx.scope(|s| {
        s.with_lane(&stream, |lane| {
            let _queued = lane.memset(&mut buf, 0)?;
            Ok::<_, aclrt::Error>(())
        })
    })?;
    match stream.stop() {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotSupported => {}
        Err(e) => return Err(e),
    }
    stream.synchronize()?;
    drop(buf);
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    assert!(aclrt::sim::audit().leaks.is_empty());
    Ok(())
}
