// Misuse: launch, with `Lane::launch_in`, a kernel reference looked up in a binary of another context (closure-branded contexts).
// Why it must not compile: the kernel's code was placed on the other context's device; its launch would run with the wrong context current.
// Enforced by: `KernelRef<'id, P>` carries the brand of its binary's context, and `launch_in` needs the lane's brand `'id`; with `Device::with_context` the error points at the launch (E0521).
use aclrt::kernel::{Count, In, KernelRef, Out};
use aclrt::{Acl, HostMode};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    device.with_context(|a| -> aclrt::Result<()> {
        let bin_a = a.load_binary(&aclrt::sim::binary_image(&["k"]))?;
        // SAFETY: (never launched: this case does not compile)
        let k: KernelRef<'_, (In<f32>, Out<f32>, Count)> = unsafe { bin_a.kernel_ref(c"k")? };
        device.with_context(|b| -> aclrt::Result<()> {
            let bin_b = b.load_binary(&aclrt::sim::binary_image(&["k"]))?;
            let stream = b.create_stream()?;
            let x = b.alloc::<f32>(4)?;
            let mut y = b.alloc::<f32>(4)?;
            b.scope(|s| {
                s.with_lane(&stream, |lane| {
                    lane.launch_in(&bin_b, k, 1, (&x, &mut y, 4))?; // k is of context a
                    Ok(())
                })
            })
        })?
    })??;
    Ok(())
}
