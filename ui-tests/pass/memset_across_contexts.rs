// Right way: memset device memory through the context that allocated it.
// Why it compiles: buffer and context carry the same brand.
// Enforced by: the invariant brand `'id` on contexts and their memory.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(explicit_guard);
    make_guard!(default_guard);
    let explicit = device.create_context(explicit_guard)?;
    let default = device.default_context(default_guard);
    let mut buffer = explicit.alloc::<u8>(32)?;
    explicit.memset(&mut buffer, 0x7F)?;
    let mut back = [0u8; 32];
    explicit.copy(&buffer, &mut back)?;
    assert_eq!(back, [0x7F; 32]);
    let mut other = default.alloc::<u8>(32)?;
    default.memset(&mut other, 0)?;
    default.copy(&other, &mut back)?;
    assert_eq!(back, [0; 32]);
    other.free()?;
    buffer.free()?;
    explicit.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
