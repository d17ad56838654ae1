// Right way: copy registered host memory into device memory on the lane, and hand foreign device work the device buffer (memory of the runtime).
// Why it compiles: the `InFlight` of a `DeviceBuffer` is a source whose memory implements `KernelMemory`; the registration itself is only a copy operand.
// Enforced by: the `KernelMemory` bound of `ForeignReads` / `ForeignWrites`.
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let mut host = PageAlignedBuf::from_slice(&[1.0f32, 2.0])?;
        let mut dev = ctx.alloc::<f32>(2)?;
        let reg = ctx.register_host(&mut host)?;
        let host_address = reg.as_slice().as_ptr() as usize;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let x = lane.copy(&reg, &mut dev)?;
            // SAFETY: the closure enqueues nothing; it only looks at the
            // operand it was given.
            unsafe {
                lane.foreign((&x,), (), None, |work| {
                    let op = work.reads()[0];
                    assert_ne!(op.ptr() as usize, host_address, "device memory, not the host address");
                    assert_eq!(op.bytes(), 8);
                    Ok(())
                })?
            };
            Ok(())
        })?;
        let mut back = [0.0f32; 2];
        ctx.download(&dev, &mut back)?;
        assert_eq!(back, [1.0, 2.0]);
        reg.unregister()?;
        drop(dev);
        stream.destroy()?;
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
