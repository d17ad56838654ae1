// Right way: initialise pinned memory (`init_from`) before copying from it; fill uninitialised memory with `copy_into_uninit`.
// Why it compiles: `init_from` and `copy_into_uninit` return a `HostBuffer`, which implements `Memory`.
// Enforced by: `HostBufferUninit` (not `Memory`) versus `HostBuffer`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let pinned = ctx
        .alloc_host_uninit::<f32>(4)?
        .init_from(&[1.0, 2.0, 3.0, 4.0])?;
    let mut on_device = ctx.alloc::<f32>(4)?;
    ctx.copy(&pinned, &mut on_device)?;
    let back = ctx.copy_into_uninit(&on_device, ctx.alloc_host_uninit::<f32>(4)?)?;
    assert_eq!(*back, [1.0, 2.0, 3.0, 4.0]);
    back.free()?;
    on_device.free()?;
    pinned.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
