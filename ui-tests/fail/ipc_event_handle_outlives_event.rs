// Misuse: keep an IPC event's handle (`Event::ipc_handle`) after dropping the event.
// Why it must not compile: the handle names the exporter's event; once the event is destroyed, a process opening the handle would wait for an event that no longer exists.
// Enforced by: `IpcEventHandle<'e>` borrows the `Event`; dropping the event needs it unborrowed.
use aclrt::{Acl, ExIpc, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let event = ctx.create_event_of::<ExIpc>()?;
    let handle = event.ipc_handle()?;
    drop(event);
    println!("{:?}", handle.key());
    Ok(())
}
