// Misuse: write a value slot of context A from a lane of context B.
// Why it must not compile: the slot is device memory of context A; a task of another context (possibly another device) would write an address that is not its own.
// Enforced by: the invariant brand `'id`: `Lane<'_, '_, 'b, '_, M>::value_write` only takes `&ValueSlot<'_, 'b>`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device.create_context(guard_a)?;
    let ctx_b = device.create_context(guard_b)?;
    let slot_a = ctx_a.value_slot(0)?;
    let stream_b = ctx_b.create_stream()?;
    ctx_b.scope(|s| s.with_lane(&stream_b, |lane| lane.value_write(&slot_a, 1)))?;
    Ok(())
}
