// Right way: close the export (drop it), then free the buffer.
// Why it compiles: the export's borrow of the buffer ends before `free`.
// Enforced by: `IpcExport<'b>` borrows the `DeviceBuffer`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buf = ctx.alloc_from(&[1u32, 2, 3, 4])?;
    let export = ctx.export_ipc(&buf, &[4242])?;
    let key = export.key().clone();
    drop(export);
    buf.free()?;
    assert!(!key.as_str().is_empty());
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
