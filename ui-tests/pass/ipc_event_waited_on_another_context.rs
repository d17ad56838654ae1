// Right way: open the IPC event in the context whose stream waits for it.
// Why it compiles: the opened event and the stream carry the same brand.
// Enforced by: the invariant brand `'id` on `IpcEvent<'ctx, 'id>` and `Stream<'ctx, 'id>`.
use aclrt::{Acl, ExIpc, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    let ctx_a = device.create_context(guard_a)?;
    make_guard!(guard_b);
    let ctx_b = device.create_context(guard_b)?;
    let event = ctx_a.create_event_of::<ExIpc>()?;
    let key = event.ipc_handle()?.key();
    let stream_a = ctx_a.create_stream()?;
    let event = stream_a.record(event)?;
    let opened = ctx_b.open_ipc_event(&key)?;
    let stream_b = ctx_b.create_stream()?;
    stream_b.wait_ipc_event(&opened)?;
    stream_b.synchronize()?;
    drop(opened);
    drop(stream_b);
    stream_a.synchronize()?;
    drop(event);
    drop(stream_a);
    ctx_b.destroy()?;
    ctx_a.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
