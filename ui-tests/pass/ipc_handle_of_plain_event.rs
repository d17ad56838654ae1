// Right way: create the event to share with `ExIpc` (ACL_EVENT_IPC), then take its IPC handle.
// Why it compiles: `ExIpc` implements `IsIpc`.
// Enforced by: `Event::ipc_handle` exists only for kinds implementing `IsIpc`.
use aclrt::{Acl, ExIpc, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let event = ctx.create_event_of::<ExIpc>()?;
    let handle = event.ipc_handle()?;
    assert_ne!(handle.key().to_bytes(), [0u8; 64]);
    drop(event);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
