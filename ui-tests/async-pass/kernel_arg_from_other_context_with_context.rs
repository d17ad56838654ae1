// Right way: with closure-branded contexts, move data between contexts through the host (or peer access), and launch with buffers of the lane's own context.
// Why it compiles: every launch argument carries the brand of the context whose lane launches it.
// Enforced by: `Device::with_context`, the brand `'id` of `KernelArg`.
use aclrt::kernel::{Count, In, Out};
use aclrt::{Acl, HostMode};

fn main() -> aclrt::Result<()> {
    aclrt::sim::register_kernel("ui_add_wc", |block, blocks, args| {
        let (a, b, c, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?, args.u64(3)?);
        for i in (block as usize..n as usize).step_by(blocks as usize) {
            args.write_f32(c, i, args.read_f32(a, i)? + args.read_f32(b, i)?)?;
        }
        Ok(())
    });
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        device.with_context(|a_ctx| -> aclrt::Result<()> {
            let a = a_ctx.alloc_from(&[1.0f32, 2.0])?;
            let mut via_host = [0f32; 2];
            a_ctx.copy(&a, &mut via_host)?;
            device.with_context(|ctx| -> aclrt::Result<()> {
                let stream = ctx.create_stream()?;
                let binary = ctx.load_binary(&aclrt::sim::binary_image(&["ui_add_wc"]))?;
                // SAFETY: ui_add_wc reads a and b, writes c, each below n.
                let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"ui_add_wc")? };
                let a = ctx.alloc_from(&via_host)?; // context B's own copy
                let b = ctx.alloc_from(&[1.0f32, 2.0])?;
                let mut c = ctx.alloc::<f32>(2)?;
                let mut out = ctx.alloc_host_zeroed::<f32>(2)?;
                ctx.scope(|s| {
                    s.with_lane(&stream, |lane| {
                        let (_, _, c, _) = lane.launch(&add, 1, (&a, &b, &mut c, 2))?;
                        let out = lane.copy(&c, &mut out)?.wait()?;
                        assert_eq!(out.as_slice(), [2.0, 4.0]);
                        Ok(())
                    })
                })?;
                drop(binary);
                stream.destroy()
            })?
        })??;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
