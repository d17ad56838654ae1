// Misuse: close an opened IPC event inside the scope whose lane waits for it (`Lane::wait_ipc_event`).
// Why it must not compile: the lane's queued wait refers to the handle until the scope has synchronised or aborted its streams; closing it there would leave the device a wait on a released handle.
// Enforced by: `Lane::wait_ipc_event` borrows the `IpcEvent` for `'scope`, so it cannot be moved (dropped) before the scope ends (E0505).
use aclrt::{Acl, ExIpc, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let event = ctx.create_event_of::<ExIpc>()?;
    let opened = ctx.open_ipc_event(&event.ipc_handle()?.key())?;
    ctx.scope(|s| {
        s.with_lane(&stream, |lane| lane.wait_ipc_event(&opened))?;
        drop(opened);
        Ok(())
    })?;
    Ok(())
}
