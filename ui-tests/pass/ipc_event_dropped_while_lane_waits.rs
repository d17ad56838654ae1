// Right way: close an opened IPC event after the scope whose lane waited for it.
// Why it compiles: the lane's borrow of the `IpcEvent` ends with the scope, which synchronised its streams.
// Enforced by: `Lane::wait_ipc_event` borrows the `IpcEvent` for `'scope`.
use aclrt::{Acl, ExIpc, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let event = ctx.create_event_of::<ExIpc>()?;
    let key = event.ipc_handle()?.key();
    let event = a.record(event)?;
    let opened = ctx.open_ipc_event(&key)?;
    ctx.scope(|s| s.with_lane(&b, |lane| lane.wait_ipc_event(&opened)))?;
    drop(opened);
    drop(event);
    drop((a, b));
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
