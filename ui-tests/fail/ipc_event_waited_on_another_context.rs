// Misuse: make a stream of one context wait for an IPC event opened in another context.
// Why it must not compile: an opened event is a handle of the context it was opened in; a stream of another context (another device, possibly) waiting for it is refused by the runtime or waits on the wrong device.
// Enforced by: the invariant brand `'id` on `IpcEvent<'ctx, 'id>` and `Stream<'ctx, 'id>`.
use aclrt::{Acl, ExIpc, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    let ctx_a = device.create_context(guard_a)?;
    make_guard!(guard_b);
    let ctx_b = device.create_context(guard_b)?;
    let event = ctx_a.create_event_of::<ExIpc>()?;
    let opened = ctx_a.open_ipc_event(&event.ipc_handle()?.key())?;
    let stream_b = ctx_b.create_stream()?;
    stream_b.wait_ipc_event(&opened)?;
    Ok(())
}
