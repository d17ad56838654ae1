// Right way: pass registered host memory to a kernel through its device aliases: `device_alias()` for `In`, `device_alias_mut()` for `Out`.
// Why it compiles: `DeviceAlias` and `DeviceAliasMut` are the addresses the runtime mapped for the device, borrowed from the registration for the whole scope.
// Enforced by: `KernelMemory` (not implemented by `HostRegistration`); the `KernelArg` impls of `DeviceAlias`/`DeviceAliasMut`.
use aclrt::kernel::{Count, In, Out};
use aclrt::sim::{RunMode, SimConfig};
use aclrt::{Acl, DeviceMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    aclrt::sim::configure(SimConfig {
        run_mode: RunMode::Device,
        ..SimConfig::from_env()
    });
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
        {
            let reg_a = ctx.register_host(&mut a)?;
            let mut reg_c = ctx.register_host(&mut c)?;
            ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                let aa = reg_a.device_alias();
                let _ = lane.launch(&add, 1, (aa, aa, reg_c.device_alias_mut(), 2))?;
                Ok(())
            })?;
        }
        assert_eq!(&c[..], &[2.0, 4.0]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
