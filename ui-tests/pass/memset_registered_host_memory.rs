// Right way: fill registered host memory from the host (`as_mut_slice().fill(..)`), and memset only runtime memory.
// Why it compiles: the registration lends its memory to the host as a slice; `DeviceBuffer` implements `RuntimeMemory`.
// Enforced by: `Context::memset` needs `RuntimeMemory`.
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    {
        make_guard!(guard);
        let ctx = device.default_context(guard);
        let mut user = PageAlignedBuf::<u8>::zeroed(4096)?;
        let mut reg = ctx.register_host(&mut user)?;
        reg.as_mut_slice().fill(7);
        let mut on_device = ctx.alloc::<u8>(4096)?;
        ctx.memset(&mut on_device, 0)?;
        ctx.copy(&reg, &mut on_device)?;
        let mut back = vec![0u8; 4096];
        ctx.copy(&on_device, &mut back)?;
        assert!(back.iter().all(|&b| b == 7));
        reg.unregister()?;
    }
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
