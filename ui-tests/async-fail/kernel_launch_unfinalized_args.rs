// Misuse: launch a hand-built argument list that was never finalized.
// Why it must not compile: `aclrtLaunchKernelWithConfig` refuses an unfinalized list (107000, K.7); the hidden slots are not filled yet.
// Enforced by: `Lane::launch_args` takes only `KernelArgs<…, Finalized>` (E0308).
use aclrt::kernel::{Count, In, Out};
use aclrt::{Acl, HostMode, make_guard};

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
        // SAFETY: ui_add reads a and b, writes c, each below n.
        let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"ui_add")? };
        let a = ctx.alloc_from(&[1.0f32, 2.0])?;
        let c = ctx.alloc_zeroed::<f32>(2)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let mut args = add.args()?;
            args.append_address(a.as_device_ptr())?;
            args.append_address(a.as_device_ptr())?;
            args.append_address(c.as_device_ptr())?;
            args.append(&2u64)?;
            // SAFETY: a and c are borrowed by this closure until the scope ends.
            unsafe { lane.launch_args(&args, 1)? };
            Ok(())
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
