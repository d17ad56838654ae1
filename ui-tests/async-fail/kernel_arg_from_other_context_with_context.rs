// Misuse: with closure-branded contexts (`Device::with_context`), a kernel launched on a lane of context B with a buffer of context A as an argument.
// Why it must not compile: the device code would address memory of another context (another device, or an address space the launch's context does not map).
// Enforced by: the brand `'id` of `KernelArg`/`AsyncSource`: the buffer's brand must equal the lane's; with `with_context` the error points at the launch (E0521).
use aclrt::kernel::{Count, In, Out};
use aclrt::{Acl, HostMode};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    device.with_context(|a_ctx| -> aclrt::Result<()> {
        let a = a_ctx.alloc_from(&[1.0f32, 2.0])?; // context A
        device.with_context(|ctx| -> aclrt::Result<()> {
            let stream = ctx.create_stream()?;
            let binary = ctx.load_binary(&aclrt::sim::binary_image(&["ui_add"]))?;
            // SAFETY: (never launched: this case does not compile)
            let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"ui_add")? };
            let b = ctx.alloc_from(&[1.0f32, 2.0])?;
            let mut c = ctx.alloc::<f32>(2)?;
            ctx.scope(|s| {
                s.with_lane(&stream, |lane| {
                    let _ = lane.launch(&add, 1, (&a, &b, &mut c, 2))?;
                    Ok(())
                })
            })
        })?
    })??;
    Ok(())
}
