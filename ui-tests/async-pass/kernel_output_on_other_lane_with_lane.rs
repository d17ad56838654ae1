// Right way: with closure-branded lanes, hand a kernel's output from lane A to lane B before B's launch reads it.
// Why it compiles: `wait_for` orders lane B after the event recorded on lane A behind the first kernel.
// Enforced by: `Scope::with_lane`, `Lane::signal`, `Lane::wait_for`, `KernelArg` for `&InFlight` of the launching lane.
use aclrt::kernel::{Count, In, Out};
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    aclrt::sim::register_kernel("ui_add_wl", |block, blocks, args| {
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
        let (stream_a, stream_b) = (ctx.create_stream()?, ctx.create_stream()?);
        let binary = ctx.load_binary(&aclrt::sim::binary_image(&["ui_add_wl"]))?;
        // SAFETY: ui_add_wl reads a and b, writes c, each below n.
        let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"ui_add_wl")? };
        let a = ctx.alloc_from(&[1.0f32, 2.0])?;
        let mut c = ctx.alloc_zeroed::<f32>(2)?;
        let mut d = ctx.alloc_zeroed::<f32>(2)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(2)?;
        ctx.scope(|s| {
            s.with_lane(&stream_a, |lane_a| {
                let (_, _, c, _) = lane_a.launch(&add, 1, (&a, &a, &mut c, 2))?;
                let signal = lane_a.signal(c)?;
                s.with_lane(&stream_b, |lane_b| {
                    let c = lane_b.wait_for(signal)?;
                    let (_, _, d, _) = lane_b.launch(&add, 1, (&c, &a, &mut d, 2))?;
                    let out = lane_b.copy(&d, &mut out)?.wait()?;
                    assert_eq!(out.as_slice(), [3.0, 6.0]);
                    Ok(())
                })
            })
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
