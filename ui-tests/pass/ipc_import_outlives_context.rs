// Right way: close an import (drop it) before destroying its context; a refused import leaves nothing to close.
// Why it compiles: nothing borrows the context when it is destroyed.
// Enforced by: `IpcMemory<'ctx, 'id, T>` borrows its `Context`.
use aclrt::{Acl, HostMode, IpcKey, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let key = IpcKey::new("no process exported this key").unwrap();
    let shared = ctx.import_ipc::<u32>(&key);
    assert!(shared.is_err(), "an unknown key is refused");
    drop(shared);
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    let audit = aclrt::sim::audit();
    assert!(audit.leaks.is_empty() && audit.live.is_empty(), "{audit:#?}");
    Ok(())
}
