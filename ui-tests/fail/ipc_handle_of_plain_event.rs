// Misuse: ask an event not created with ACL_EVENT_IPC for an IPC handle (`Event::ipc_handle`).
// Why it must not compile: `aclrtIpcGetEventHandle` takes only events of `aclrtCreateEventExWithFlag(ACL_EVENT_IPC)`; any other event is refused by the runtime.
// Enforced by: `Event::ipc_handle` exists only for kinds implementing `IsIpc` (only `ExIpc`).
use aclrt::{Acl, ExSync, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let event = ctx.create_event_of::<ExSync>()?;
    let handle = event.ipc_handle()?;
    println!("{:?}", handle.key());
    Ok(())
}
