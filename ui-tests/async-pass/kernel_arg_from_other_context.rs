// Right way: give the kernel buffers of the lane's own context (copy across contexts first, outside the scope).
// Why it compiles: every operand carries the brand `'id` of `ctx`, the lane's context.
// Enforced by: the brand `'id` of `KernelArg`/`AsyncSource`.
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
        make_guard!(other_guard);
        let other = device.create_context(other_guard)?;
        let remote = other.alloc_from(&[1.0f32, 2.0])?; // context B
        let mut host = [0f32; 2];
        other.copy(&remote, &mut host[..])?;
        let a = ctx.alloc_from(&host)?; // now in context A
        let b = ctx.alloc_from(&[1.0f32, 2.0])?;
        let mut c = ctx.alloc::<f32>(2)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let (_, _, c, _) = lane.launch(&add, 1, (&a, &b, &mut c, 2))?;
            let c = c.wait()?;
            let mut out = [0f32; 2];
            ctx.copy(&*c, &mut out[..])?;
            assert_eq!(out, [2.0, 4.0]);
            Ok(())
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
