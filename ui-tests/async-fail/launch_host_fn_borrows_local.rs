// Misuse: queue an unscoped host function (`Stream::launch_host_fn`) that borrows a local variable.
// Why it must not compile: nothing synchronises the stream before the local dies; the callback may run after (use after free).
// Enforced by: `Stream::launch_host_fn` requires `F: Send + 'static` (E0373 / E0597).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let data = vec![1u32, 2, 3];
    stream.launch_host_fn(|| println!("{}", data.len()))?;
    stream.synchronize()?;
    Ok(())
}
