// Right way: between two contexts of one device, `Context::copy_to_context` names both brands and checks the device at run time.
// Why it compiles: the source has the outer brand, the destination the inner one, as the method's two brand parameters say.
// Enforced by: `copy_to_context<'id2, S: DeviceMemory<'id>, D: DeviceMemory<'id2>>`.
use aclrt::{Acl, HostMode};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    device.with_context(|outer| -> aclrt::Result<()> {
        let src = outer.alloc_from(&[1u32, 2])?;
        device.with_context(|inner| -> aclrt::Result<()> {
            let mut dst = inner.alloc::<u32>(2)?;
            outer.copy_to_context(inner, &src, &mut dst)?;
            let mut back = [0u32; 2];
            inner.download(&dst, &mut back)?;
            assert_eq!(back, [1, 2]);
            Ok(())
        })?
    })??;
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
