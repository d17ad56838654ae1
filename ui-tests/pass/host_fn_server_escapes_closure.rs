// Right way: use the host-function server inside the closure of `Stream::serve_host_fns`, and return what it served.
// Why it compiles: only plain data (the count) leaves the closure; the server stays inside it.
// Enforced by: `serve_host_fns` lends `&HostFnServer<'s>` for a higher-ranked `'s`.
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
    let served = stream.serve_host_fns(|server| -> Result<u32, aclrt::Error> {
        stream.launch_host_fn(|| {})?;
        while server.process(std::time::Duration::from_millis(10))? != Processed::Ran {}
        Ok(1)
    })??;
    assert_eq!(served, 1);
    stream.synchronize()?;
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    // The compact service is reported (the modelled chips do not offer it).
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
