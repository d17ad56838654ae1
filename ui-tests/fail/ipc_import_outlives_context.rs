// Misuse: destroy a context while memory imported into it from another process is still open.
// Why it must not compile: the import is a mapping of the context's device; it must be closed before its context and device go.
// Enforced by: `IpcMemory<'ctx, 'id, T>` borrows its `Context`; `Context::destroy(self)` needs it unborrowed.
use aclrt::{Acl, HostMode, IpcKey, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let key = IpcKey::new("a key from another process").unwrap();
    let shared = ctx.import_ipc::<u32>(&key)?;
    ctx.destroy()?;
    drop(shared);
    Ok(())
}
