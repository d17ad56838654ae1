// Misuse: a kernel writes (`Out`) a buffer that an async copy queued before it on another lane reads.
// Why it must not compile: the two streams run concurrently: the kernel could overwrite the buffer while the copy is still reading it.
// Enforced by: `Lane::copy` borrows its source `&'scope` for the rest of the scope; `Out` needs `&'scope mut` (E0502).
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
        let mut host = ctx.alloc_host_zeroed::<f32>(2)?;
        let other_stream = ctx.create_stream()?;
        ctx.scope(|s| {
            make_guard!(l1);
            let reader = s.lane(&other_stream, l1);
            let _ = reader.copy(&c, &mut host)?; // reads c
            make_guard!(l2);
            let lane = s.lane(&stream, l2);
            let _ = lane.launch(&add, 1, (&a, &a, &mut c, 2))?; // writes c meanwhile
            Ok(())
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
