// Right way: read a value slot after the scope that wrote it has ended.
// Why it compiles: the scope's borrow of the slot ends with the scope, which synchronised its lanes, so `&mut slot` is free and the write is done.
// Enforced by: `Lane::value_write` borrows the `ValueSlot` for `'scope`, and `Context::read_value` needs `&mut ValueSlot`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let mut slot = ctx.value_slot(0)?;
    ctx.scope(|s| s.with_lane(&stream, |lane| lane.value_write(&slot, 1)))?;
    assert_eq!(ctx.read_value(&mut slot)?, 1);
    drop(slot);
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    assert!(aclrt::sim::audit().leaks.is_empty());
    Ok(())
}
