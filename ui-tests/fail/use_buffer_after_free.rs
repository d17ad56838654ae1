// Misuse: copy into device memory after freeing it explicitly.
// Why it must not compile: the address is invalid after `aclrtFree`; writing to it is a use after free.
// Enforced by: `DeviceBuffer::free(self)` consumes the buffer (it is not `Copy`), so later uses are uses of a moved value.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut buffer = ctx.alloc::<u32>(4)?;
    buffer.free()?;
    ctx.copy(&[1u32, 2, 3, 4], &mut buffer)?;
    Ok(())
}
