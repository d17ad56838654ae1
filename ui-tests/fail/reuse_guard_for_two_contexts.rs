// Misuse: brand two contexts with the same guard.
// Why it must not compile: both contexts would carry the same brand `'id`, so memory of one would be accepted by the other.
// Enforced by: `Guard<'id>` (generativity) is not `Copy`; `Device::create_context` consumes it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let first = device.create_context(guard)?;
    let second = device.create_context(guard)?;
    second.destroy()?;
    first.destroy()?;
    Ok(())
}
