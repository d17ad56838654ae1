// Right way: hand the output from lane A to lane B with `signal` / `wait_for`, then launch.
// Why it compiles: after `wait_for` the buffer is an `InFlight` of lane B, ordered after lane A's kernel.
// Enforced by: `Lane::signal` / `Lane::wait_for`.
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
        let mut c = ctx.alloc_zeroed::<f32>(2)?;
        let mut d = ctx.alloc_zeroed::<f32>(2)?;
        let other_stream = ctx.create_stream()?;
        ctx.scope(|s| {
            make_guard!(la);
            let lane_a = s.lane(&stream, la);
            make_guard!(lb);
            let lane_b = s.lane(&other_stream, lb);
            let (_, _, c, _) = lane_a.launch(&add, 1, (&a, &a, &mut c, 2))?;
            let c = lane_b.wait_for(lane_a.signal(c)?)?;
            let (_, _, d, _) = lane_b.launch(&add, 1, (&c, &a, &mut d, 2))?;
            let d = d.wait()?;
            let mut out = [0f32; 2];
            ctx.copy(&*d, &mut out[..])?;
            assert_eq!(out, [3.0, 6.0]);
            Ok(())
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
