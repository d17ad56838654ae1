// Right way: copy from the registration itself (host memory, truly asynchronous); keep the alias for kernel arguments.
// Why it compiles: `HostRegistration` is a copy operand (`Memory`, `PinnedMemory`); `DeviceAlias` only carries the address, brand and length.
// Enforced by: `DeviceAlias<'r, 'id, T>` implements no copy-operand trait; `HostRegistration` implements them.
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    {
        make_guard!(guard);
        let ctx = device.default_context(guard);
        let stream = ctx.create_stream()?;
        let mut user = PageAlignedBuf::from_slice(&[1.5f32; 1024])?;
        let reg = ctx.register_host(&mut user)?;
        let alias = reg.device_alias();
        assert_eq!(alias.len(), 1024);
        let mut on_device = ctx.alloc::<f32>(1024)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _x = lane.copy(&reg, &mut on_device)?;
            Ok(())
        })?;
        let mut back = vec![0.0f32; 1024];
        ctx.copy(&on_device, &mut back)?;
        assert!(back.iter().all(|&v| v == 1.5));
        reg.unregister()?;
    }
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
