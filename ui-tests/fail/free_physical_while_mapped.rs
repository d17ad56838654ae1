// Misuse: free a physical allocation (`aclrtFreePhysical`) while a mapping still maps it.
// Why it must not compile: the mapping's views would reach freed device memory.
// Enforced by: `Reservation::map` borrows the `PhysicalMem` mutably for the mapping's `'p`; `PhysicalMem::free(self)` needs it unborrowed.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let gran = ctx.granularity()?;
    let range = ctx.reserve(gran.granules(1)?)?;
    let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
    let mapping = range.map(0, &mut phys)?;
    phys.free()?;
    mapping.unmap()?;
    Ok(())
}
