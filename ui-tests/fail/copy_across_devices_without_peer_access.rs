// Misuse: copy device memory of device 0 into device memory of device 1 with a plain copy, without enabling peer access.
// Why it must not compile: a device can only read another device's memory after `aclrtDeviceEnablePeerAccess`.
// Enforced by: the brands `'id` keep the contexts apart (`copy_on_device` wants both sides of one context); only `copy_to_peer`, which demands a `PeerAccess` value, crosses devices.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    let device0 = rt.device(0)?;
    let device1 = rt.device(1)?;
    make_guard!(guard0);
    make_guard!(guard1);
    let ctx0 = device0.create_context(guard0)?;
    let ctx1 = device1.create_context(guard1)?;
    let source = ctx0.alloc_zeroed::<f32>(8)?;
    let mut target = ctx1.alloc::<f32>(8)?;
    ctx0.copy_on_device(&source, &mut target)?;
    Ok(())
}
