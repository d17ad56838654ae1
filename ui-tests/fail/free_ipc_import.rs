// Misuse: free memory imported from another process as if this process owned it.
// Why it must not compile: the exporter owns the allocation; the importer may only close its view of it (`aclrtIpcMemClose`), never `aclrtFree` it.
// Enforced by: `IpcMemory<'ctx, 'id, T>` has no `free` method (only `Drop`, which closes the import).
use aclrt::{Acl, HostMode, IpcKey, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let key = IpcKey::new("a key from another process").unwrap();
    let shared = ctx.import_ipc::<u32>(&key)?;
    shared.free()?;
    Ok(())
}
