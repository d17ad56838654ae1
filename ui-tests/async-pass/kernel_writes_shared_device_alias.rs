// Right way: take the writable alias (`device_alias_mut`) for an `Out` parameter, and read the memory after the scope (or after unregistering).
// Why it compiles: `DeviceAliasMut` holds the registration exclusively for the scope, so the CPU reads only once the kernel is done.
// Enforced by: `KernelArg<Out<T>>` for `DeviceAliasMut<'scope, 'id, T>`.
use aclrt::kernel::{Count, In, Out};
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

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
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let binary = ctx.load_binary(&aclrt::sim::binary_image(&["ui_add"]))?;
        // SAFETY: ui_add reads a, b and writes c, each below n.
        let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"ui_add")? };
        let a = ctx.alloc_from(&[1.5f32; 1024])?;
        let mut user = PageAlignedBuf::<f32>::zeroed(1024)?;
        let mut reg = ctx.register_host(&mut user)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            lane.launch(&add, 2, (&a, &a, reg.device_alias_mut(), 1024))?;
            Ok(())
        })?;
        assert!(reg.as_slice().iter().all(|&v| v == 3.0));
        drop(reg);
        drop(binary);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
