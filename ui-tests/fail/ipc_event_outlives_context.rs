// Misuse: destroy a context while an IPC event opened in it lives.
// Why it must not compile: the opened event is a handle of its context; it must be closed before the context (and its device) goes.
// Enforced by: `IpcEvent<'ctx, 'id>` borrows its `Context`; `Context::destroy(self)` needs it unborrowed.
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
    ctx_b.destroy()?;
    println!("{opened:?}");
    Ok(())
}
