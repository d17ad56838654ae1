// Right way: the exporter records its event; the importer waits for the opened one.
// Why it compiles: `Stream::record` takes the exporter's `Event`; `Stream::wait_ipc_event` takes the `IpcEvent`.
// Enforced by: `IpcEvent` is not an `Event`.
use aclrt::{Acl, ExIpc, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (exporter, importer) = (ctx.create_stream()?, ctx.create_stream()?);
    let event = ctx.create_event_of::<ExIpc>()?;
    let opened = ctx.open_ipc_event(&event.ipc_handle()?.key())?;
    let event = exporter.record(event)?;
    importer.wait_ipc_event(&opened)?;
    importer.synchronize()?;
    exporter.synchronize()?;
    drop(opened);
    drop(event);
    drop((exporter, importer));
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
