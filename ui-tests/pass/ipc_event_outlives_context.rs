// Right way: drop (close) the opened IPC event before destroying its context.
// Why it compiles: the event's borrow of its context ends at the drop.
// Enforced by: `IpcEvent<'ctx, 'id>` borrows its `Context`.
use aclrt::{Acl, ExIpc, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    let ctx_a = device.create_context(guard_a)?;
    make_guard!(guard_b);
    let ctx_b = device.create_context(guard_b)?;
    let event = ctx_a.create_event_of::<ExIpc>()?;
    let opened = ctx_b.open_ipc_event(&event.ipc_handle()?.key())?;
    println!("{opened:?}");
    drop(opened);
    ctx_b.destroy()?;
    drop(event);
    ctx_a.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
