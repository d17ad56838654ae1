// Right way: use the default context and let the device release it (`Device::reset`); destroy only contexts you created.
// Why it compiles: `DefaultContext` is a view with no drop code; once unused it no longer borrows the device, which can then be reset.
// Enforced by: `DefaultContext` (a `destroy` that cannot be called, `Deref<Target = Context>` only).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.default_context(guard);
    let buffer = ctx.alloc_from(&[3u8; 32])?;
    let mut back = [0u8; 32];
    ctx.copy(&buffer, &mut back)?;
    assert_eq!(back, [3; 32]);
    buffer.free()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
