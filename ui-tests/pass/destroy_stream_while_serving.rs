// Right way: destroy a served stream after `serve_host_fns` returned (the stream was unsubscribed).
// Why it compiles: the borrow of `serve_host_fns` has ended when `Stream::destroy(self)` moves the stream.
// Enforced by: `Stream::serve_host_fns(&self, ..)` borrows the stream only for the call.
use aclrt::sim::{HostFuncThreads, SimConfig};
use aclrt::{Acl, HostMode, make_guard};

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
    let id = stream.serve_host_fns(|server| server.thread_id())?;
    assert_ne!(id, 0);
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
