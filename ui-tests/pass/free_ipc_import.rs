// Right way: an import is closed by dropping it; the exporter frees its buffer after closing its export.
// Why it compiles: `IpcExport` borrows the buffer, and is dropped before `free`.
// Enforced by: `IpcMemory` closes on drop; `Context::export_ipc` borrows the `DeviceBuffer`.
use aclrt::{Acl, ErrorKind, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buf = ctx.alloc_from(&[1u32, 2, 3, 4])?;
    let export = ctx.export_ipc(&buf, &[std::process::id()])?;
    assert!(!export.key().as_str().is_empty());
    // This process owns the buffer: importing its own export is refused.
    let e = ctx.import_ipc::<u32>(export.key()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidParam);
    drop(export);
    buf.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
