// Right way: store flags as `u8` (0 or 1) in pinned memory and turn them into `bool` on the host.
// Why it compiles: `u8` is valid for every bit pattern and implements `DeviceRepr`.
// Enforced by: the `T: DeviceRepr` bound of `Context::alloc_host_from`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let flags = ctx.alloc_host_from(&[1u8, 0, 1])?;
    let as_bool: Vec<bool> = flags.iter().map(|flag| flag != 0).collect();
    assert_eq!(as_bool, [true, false, true]);
    flags.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
