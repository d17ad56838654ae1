// Right way: unload the binary after the scope that launched its kernels has ended (it synchronised every lane).
// Why it compiles: the scope's borrow of the binary ends with `Context::scope`.
// Enforced by: `Lane::launch_in(&'scope Binary, ..)`, `Binary::unload(self)`.
use aclrt::kernel::{Count, In, Out};
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    aclrt::sim::register_kernel("ui_unload_copy", |block, blocks, args| {
        let (x, y, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?);
        for i in (block as usize..n as usize).step_by(blocks as usize) {
            args.write_f32(y, i, args.read_f32(x, i)?)?;
        }
        Ok(())
    });
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let binary = ctx.load_binary(&aclrt::sim::binary_image(&["ui_unload_copy"]))?;
        // SAFETY: `ui_unload_copy` reads `In` and writes `Out` below `Count`, nothing else.
        let k = unsafe { binary.kernel_ref::<(In<f32>, Out<f32>, Count)>(c"ui_unload_copy")? };
        let stream = ctx.create_stream()?;
        let x = ctx.alloc_from(&[2.0f32; 4])?;
        let mut y = ctx.alloc::<f32>(4)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let _ = lane.launch_in(&binary, k, 1, (&x, &mut y, 4))?;
                Ok(())
            })
        })?;
        binary.unload()?;
        let mut back = [0f32; 4];
        ctx.copy(&y, &mut back)?;
        assert_eq!(back, [2.0; 4]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
