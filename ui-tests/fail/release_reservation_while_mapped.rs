// Misuse: release a reserved address range (`aclrtReleaseMemAddress`) while a mapping still lies in it.
// Why it must not compile: the runtime refuses to release a range with mappings, and the mapping's views would name addresses no longer reserved.
// Enforced by: `Mapping<'r, 'p, 'id>` borrows its `Reservation` for `'r`; `Reservation::release(self)` needs it unborrowed.
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
    range.release()?;
    mapping.unmap()?;
    Ok(())
}
