// Misuse: pass registered host memory (a `HostRegistration`) to a kernel by its host address, in device run mode (where pinned `HostBuffer`s may be passed).
// Why it must not compile: registered memory is the program's own host memory, not device memory: the device code reaches it only through the alias the runtime maps (`aclrtHostGetDevicePointer`); its host address is not memory of the runtime.
// Enforced by: `KernelMemory`: implemented by the memory the runtime allocated (device, managed, pinned), not by `HostRegistration` (E0277 with its `on_unimplemented` message).
use aclrt::kernel::{Count, In, Out};
use aclrt::{Acl, DeviceMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    aclrt::sim::register_kernel("ui_add", |block, blocks, args| {
        let (a, b, c, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?, args.u64(3)?);
        for i in (block as usize..n as usize).step_by(blocks as usize) {
            args.write_f32(c, i, args.read_f32(a, i)? + args.read_f32(b, i)?)?;
        }
        Ok(())
    });
    let acl = Acl::init()?;
    {
        let device = acl.require::<DeviceMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let binary = ctx.load_binary(&aclrt::sim::binary_image(&["ui_add"]))?;
        // SAFETY: ui_add reads a and b, writes c, each below n.
        let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"ui_add")? };
        let mut a = PageAlignedBuf::from_slice(&[1.0f32, 2.0])?;
        let mut c = PageAlignedBuf::<f32>::zeroed(2)?;
        let a = ctx.register_host(&mut a)?;
        let mut c = ctx.register_host(&mut c)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.launch(&add, 1, (&a, &a, &mut c, 2))?;
            Ok(())
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
