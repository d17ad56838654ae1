// Misuse: record an opened IPC event on a stream of the importing process.
// Why it must not compile: the event is the exporter's; the importing process only waits for it (the runtime's IPC event protocol), and an opened handle is not an event this process owns.
// Enforced by: `IpcEvent` is not an `Event`: `Stream::record` takes an `Event` by value.
use aclrt::{Acl, ExIpc, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let event = ctx.create_event_of::<ExIpc>()?;
    let opened = ctx.open_ipc_event(&event.ipc_handle()?.key())?;
    let _recorded = stream.record(opened)?;
    Ok(())
}
