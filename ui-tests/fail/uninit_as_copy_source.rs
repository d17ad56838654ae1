// Misuse: copy pinned host memory that was never initialised to the device.
// Why it must not compile: the copy would read uninitialised bytes (and the device would compute on garbage).
// Enforced by: `HostBufferUninit` does not implement `Memory`, so it is not a copy source of `Context::copy` (nor of `upload`).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let pinned = ctx.alloc_host_uninit::<f32>(4)?;
    let mut on_device = ctx.alloc::<f32>(4)?;
    ctx.copy(&pinned, &mut on_device)?;
    Ok(())
}
