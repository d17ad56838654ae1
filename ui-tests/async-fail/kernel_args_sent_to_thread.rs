// Misuse: move a kernel argument list being built (`KernelArgs`) to another thread.
// Why it must not compile: the runtime's argument list is per thread (K.6): another thread's `aclrtKernelArgsInit` would re-initialise it under the builder, and the list must not be used from another thread.
// Enforced by: `KernelArgs` holds the marker `aclrt::marker::ThreadBound` (and a `!Send` claim of its thread's list) (E0277: cannot be sent between threads safely).
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
        drop(stream); // no lane here
        let args = add.args()?;
        std::thread::scope(|t| {
            t.spawn(move || {
                let _ = args.finalize();
            });
        });
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
