// Misuse: duplicate a device buffer, so that two owners would each free the same address.
// Why it must not compile: the second `aclrtFree` of one address is a double free.
// Enforced by: `DeviceBuffer` implements neither `Clone` nor `Copy`: one value, one owner (copy the contents with `Context::copy_on_device` instead).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let buffer = ctx.alloc::<f32>(4)?;
    let twin = buffer.clone();
    buffer.free()?;
    twin.free()?;
    Ok(())
}
