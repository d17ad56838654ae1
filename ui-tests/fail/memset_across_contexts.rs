// Misuse: memset, on a device's default context, device memory allocated in an explicit context of the same device.
// Why it must not compile: the two are different contexts even on one device; memory is only valid in the context that allocated it.
// Enforced by: the invariant brand `'id`: each `make_guard!` gives a distinct brand, and `Context::memset` only accepts `MemoryMut` of its own brand.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(explicit_guard);
    make_guard!(default_guard);
    let explicit = device.create_context(explicit_guard)?;
    let default = device.default_context(default_guard);
    let mut buffer = explicit.alloc::<u8>(32)?;
    default.memset(&mut buffer, 0)?;
    Ok(())
}
