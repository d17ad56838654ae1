// Right way: write a value slot from a lane of the context that made it.
// Why it compiles: the slot and the lane's stream carry the same brand `'id`.
// Enforced by: the invariant brand `'id` shared by `ValueSlot<'_, 'id>` and `Lane<'_, '_, 'id, '_, M>`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard_a);
    make_guard!(guard_b);
    let ctx_a = device.create_context(guard_a)?;
    let ctx_b = device.create_context(guard_b)?;
    let mut slot_a = ctx_a.value_slot(0)?;
    let stream_a = ctx_a.create_stream()?;
    let stream_b = ctx_b.create_stream()?;
    ctx_a.scope(|s| s.with_lane(&stream_a, |lane| lane.value_write(&slot_a, 1)))?;
    assert_eq!(ctx_a.read_value(&mut slot_a)?, 1);
    drop(slot_a);
    stream_b.destroy()?;
    stream_a.destroy()?;
    ctx_b.destroy()?;
    ctx_a.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
