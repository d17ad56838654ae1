// Misuse: reserve or allocate with a size measured in another context's granules.
// Why it must not compile: the granularity is a property of a device; a size in another device's granules may be misaligned for this one.
// Enforced by: the invariant brand `'id` on `Granularity<'id>` and `Granules<'id>`: `Context<'_, 'b, M>::reserve` only takes `Granules<'b>`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device.create_context(guard_a)?;
    let ctx_b = device.create_context(guard_b)?;
    let size_a = ctx_a.granularity()?.granules(1)?;
    let range = ctx_b.reserve(size_a)?;
    drop(range);
    Ok(())
}
