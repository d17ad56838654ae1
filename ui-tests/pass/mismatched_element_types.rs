// Right way: convert the values on the host (`f32` to `u32`), then copy `u32` to `u32`.
// Why it compiles: source and destination have the same element type.
// Enforced by: the `Elem = S::Elem` bound of `Context::copy`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut target = ctx.alloc::<u32>(3)?;
    let floats = [1.0f32, 2.0, 3.0];
    let ints: Vec<u32> = floats.iter().map(|&x| x as u32).collect();
    ctx.copy(&ints, &mut target)?;
    let mut back = vec![0u32; 3];
    ctx.copy(&target, &mut back)?;
    assert_eq!(back, [1, 2, 3]);
    target.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
