// Misuse: destroy a context while a binary loaded through it is alive.
// Why it must not compile: the binary's kernels would then launch on (and its unload would run in) a context that no longer exists.
// Enforced by: `Binary<'ctx, 'id>` borrows its `Context`; `Context::destroy(self)` needs it unborrowed (E0505).
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
        let _ = &add;
        drop(stream);
        ctx.destroy()?; // the binary still borrows ctx
        drop(binary);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
