// Right way: launch on the lane from the scope's thread; let the host function do host work only.
// Why it compiles: the launch is queued by the thread that owns the lane; the host function captures only `Send` data.
// Enforced by: `Lane: !Send + !Sync`; `host_fn` takes `FnOnce() + Send + 'scope`.
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
        let ran = std::sync::atomic::AtomicBool::new(false);
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let (_, _, c, _) = lane.launch(&add, 1, (&a, &a, &mut c, 2))?;
            lane.host_fn(|| ran.store(true, std::sync::atomic::Ordering::SeqCst))?;
            let c = c.wait()?;
            let mut out = [0f32; 2];
            ctx.copy(&*c, &mut out[..])?;
            assert_eq!(out, [2.0, 4.0]);
            Ok(())
        })?;
        assert!(ran.load(std::sync::atomic::Ordering::SeqCst));
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
