// Misuse: `aclrtMemset` on pageable host memory (a `Vec`) that the runtime did not allocate.
// Why it must not compile: the runtime decides from the address where memory lies; on host memory it did not allocate the behaviour is undefined.
// Enforced by: `Context::memset` requires `D: PinnedMemory<'id>` (device or pinned host memory only).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut pageable = vec![0u8; 64];
    ctx.memset(&mut pageable, 7)?;
    Ok(())
}
