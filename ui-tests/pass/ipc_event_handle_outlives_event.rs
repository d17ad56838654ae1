// Right way: take the key out of an IPC event's handle while the event lives, and drop the event only after.
// Why it compiles: the handle's borrow of the event ends before the event is dropped.
// Enforced by: `IpcEventHandle<'e>` borrows the `Event`.
use aclrt::{Acl, ExIpc, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let event = ctx.create_event_of::<ExIpc>()?;
    let handle = event.ipc_handle()?;
    let key = handle.key();
    let opened = ctx.open_ipc_event(&key)?;
    let event = stream.record(event)?;
    stream.wait_ipc_event(&opened)?;
    stream.synchronize()?;
    drop(opened);
    drop(event);
    drop(stream);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
