// Misuse: unload a binary inside the scope after launching one of its kernels through a `KernelRef`.
// Why it must not compile: `aclrtBinaryUnLoad` frees the kernel's code while the launch may still be queued or running.
// Enforced by: `Lane::launch_in` borrows the `Binary` for the whole scope (`'scope`, longer than the closure); a binary the closure unloads (moves) cannot be borrowed that long (E0597).
use aclrt::kernel::{Count, In, Out};
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let binary = ctx.load_binary(&aclrt::sim::binary_image(&["k"]))?;
    // SAFETY: (never launched: this case does not compile)
    let k = unsafe { binary.kernel_ref::<(In<f32>, Out<f32>, Count)>(c"k")? };
    let stream = ctx.create_stream()?;
    let x = ctx.alloc::<f32>(4)?;
    let mut y = ctx.alloc::<f32>(4)?;
    ctx.scope(|s| {
        s.with_lane(&stream, |lane| {
            lane.launch_in(&binary, k, 1, (&x, &mut y, 4))?;
            binary.unload()?; // the launch may still run
            Ok(())
        })
    })?;
    Ok(())
}
