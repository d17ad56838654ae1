// Right way: serve on the thread that subscribed; other threads queue host functions on the stream.
// Why it compiles: only `&Stream` (which is `Sync`) crosses into the spawned thread; the server stays on its own.
// Enforced by: `HostFnServer` is neither `Send` nor `Sync`; `Stream` is both.
use aclrt::sim::{HostFuncThreads, SimConfig};
use aclrt::{Acl, HostMode, Processed, make_guard};

fn main() -> Result<(), aclrt::Error> {
    aclrt::sim::configure(SimConfig {
        host_func_threads: HostFuncThreads::Compact,
        ..SimConfig::default()
    });
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let me = std::thread::current().id();
    let (tx, rx) = std::sync::mpsc::channel();
    stream.serve_host_fns(|server| {
        std::thread::scope(|s| -> Result<(), aclrt::Error> {
            s.spawn(|| stream.launch_host_fn(move || tx.send(std::thread::current().id()).unwrap()))
                .join()
                .unwrap()?;
            while server.process(std::time::Duration::from_millis(10))? != Processed::Ran {}
            Ok(())
        })
    })??;
    assert_eq!(rx.recv().unwrap(), me);
    stream.synchronize()?;
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    let audit = aclrt::sim::audit();
    assert!(audit.leaks.is_empty());
    assert!(
        audit
            .violations
            .iter()
            .all(|v| v.kind == aclrt::sim::ViolationKind::Unsupported)
    );
    Ok(())
}
