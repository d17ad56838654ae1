// Misuse: a kernel launched on a lane of context A with a buffer of context B as an argument.
// Why it must not compile: the device code would address memory of another context (another device, or an address space the launch's context does not map).
// Enforced by: the brand `'id` of `KernelArg`/`AsyncSource`: the buffer's brand must equal the lane's (E0716 at a `make_guard!`).
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
        let a = other.alloc_from(&[1.0f32, 2.0])?; // context B
        let b = ctx.alloc_from(&[1.0f32, 2.0])?;
        let mut c = ctx.alloc::<f32>(2)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _ = lane.launch(&add, 1, (&a, &b, &mut c, 2))?;
            Ok(())
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
