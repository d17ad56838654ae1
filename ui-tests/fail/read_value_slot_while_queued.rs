// Misuse: read a value slot from the host (`Context::read_value`) inside the scope that queued a value write on it.
// Why it must not compile: the device may still be writing the slot (the write is queued, not done), and the slot is borrowed by the scope until its lanes are synchronised.
// Enforced by: `Lane::value_write` borrows the `ValueSlot` for `'scope`, and `Context::read_value` needs `&mut ValueSlot`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let mut slot = ctx.value_slot(0)?;
    ctx.scope(|s| {
        s.with_lane(&stream, |lane| {
            lane.value_write(&slot, 1)?;
            ctx.read_value(&mut slot)
        })
    })?;
    Ok(())
}
