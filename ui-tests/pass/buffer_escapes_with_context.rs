// Right way: inside `Device::with_context`, use the context's buffers and return plain data.
// Why it compiles: the closure's result (`Vec<u8>`) names neither the context nor its brand.
// Enforced by: the higher-ranked closure bound of `Device::with_context`.
use aclrt::{Acl, HostMode};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    let data = device.with_context(|ctx| -> aclrt::Result<Vec<u8>> {
        let buf = ctx.alloc_from(&[4u8; 16])?;
        let mut out = vec![0u8; 16];
        ctx.download(&buf, &mut out)?;
        Ok(out)
    })??;
    assert_eq!(data, [4u8; 16]);
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
