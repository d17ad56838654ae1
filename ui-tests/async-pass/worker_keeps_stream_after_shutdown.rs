// Right way: a worker uses the stream while the service runs; what it keeps past shutdown is plain data.
// Why it compiles: only owned results leave the thread scope; the stream stays inside it.
// Enforced by: the lifetimes of the scoped threads and of `Stream<'ctx, 'id>`.
use std::sync::Mutex;
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    let kept: Mutex<Vec<bool>> = Mutex::new(Vec::new());
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    {
        let stream = ctx.create_stream()?;
        std::thread::scope(|t| {
            t.spawn(|| kept.lock().unwrap().push(stream.synchronize().is_ok()));
        });
        stream.destroy()?;
    }
    assert_eq!(*kept.lock().unwrap(), [true]);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
