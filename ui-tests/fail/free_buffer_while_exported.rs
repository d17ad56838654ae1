// Misuse: free a device buffer while it is exported to other processes.
// Why it must not compile: an importing process could still read or write the freed memory.
// Enforced by: `Context::export_ipc` returns `IpcExport<'b>` borrowing the `DeviceBuffer`; `DeviceBuffer::free(self)` needs it unborrowed.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buf = ctx.alloc_from(&[1u32, 2, 3, 4])?;
    let export = ctx.export_ipc(&buf, &[4242])?;
    buf.free()?;
    drop(export);
    Ok(())
}
