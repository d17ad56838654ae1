// Right way: copy into device memory and read it back before freeing it.
// Why it compiles: every use comes before the consuming `DeviceBuffer::free(self)`.
// Enforced by: `DeviceBuffer::free(self)` consumes the buffer.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut buffer = ctx.alloc::<u32>(4)?;
    ctx.copy(&[1u32, 2, 3, 4], &mut buffer)?;
    let mut back = [0u32; 4];
    ctx.copy(&buffer, &mut back)?;
    assert_eq!(back, [1, 2, 3, 4]);
    buffer.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
