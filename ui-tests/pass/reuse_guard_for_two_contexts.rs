// Right way: one `make_guard!` per context.
// Why it compiles: each context gets its own guard, hence its own brand.
// Enforced by: `Guard<'id>` is consumed by `Device::create_context`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(first_guard);
    make_guard!(second_guard);
    let first = device.create_context(first_guard)?;
    let second = device.create_context(second_guard)?;
    assert_ne!(first.as_raw(), second.as_raw());
    second.destroy()?;
    first.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
