// Misuse: use a mapping after `unmap` (`aclrtUnmapMem`).
// Why it must not compile: its addresses no longer map device memory.
// Enforced by: `Mapping::unmap(self)` consumes the mapping; `Mapping: !Copy`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let gran = ctx.granularity()?;
    let range = ctx.reserve(gran.granules(1)?)?;
    let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
    let mut mapping = range.map(0, &mut phys)?;
    mapping.unmap()?;
    ctx.memset(&mut mapping.view_mut::<u8>(), 0)?;
    Ok(())
}
