// Misuse: launch a kernel from inside a host function (on the runtime's callback thread) through the lane.
// Why it must not compile: the host function runs while its stream waits for it, on another thread: the lane (and its scope's bookkeeping) belongs to the scope's thread, and a launch queued from there could never be covered by the scope's end.
// Enforced by: `Lane` is neither `Send` nor `Sync` (it holds `aclrt::marker::ThreadBound`), and `Lane::host_fn` needs a `Send` closure (E0277).
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
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let c = &mut c;
            lane.host_fn(|| {
                let _ = lane.launch(&add, 1, (&a, &a, c, 2));
            })?;
            Ok(())
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
