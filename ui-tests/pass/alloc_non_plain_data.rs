// Right way: put the text's bytes (`u8`, plain data) on the device, and rebuild the `String` on the host.
// Why it compiles: `u8` implements `DeviceRepr`.
// Enforced by: the `T: DeviceRepr` bound of `Context::alloc` and friends.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let text = "hello, npu";
    let bytes = ctx.alloc_from(text.as_bytes())?;
    let mut back = vec![0u8; bytes.len()];
    ctx.download(&bytes, &mut back)?;
    assert_eq!(String::from_utf8(back).expect("valid UTF-8"), text);
    bytes.free()?;
    ctx.destroy()?;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
