// Misuse: with closure-branded lanes, use a kernel's output (in flight on lane A) as an input of a launch on lane B without a hand-off.
// Why it must not compile: lane B's kernel could read the buffer before lane A's kernel has written it: the streams are not ordered.
// Enforced by: `InFlight<'scope, 'sid, D>` is branded with its lane; `KernelArg` for `&InFlight` requires the launching lane's brand. With `Scope::with_lane` the error points at the launch (E0521).
use aclrt::kernel::{Count, In, Out};
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (stream_a, stream_b) = (ctx.create_stream()?, ctx.create_stream()?);
    let binary = ctx.load_binary(&aclrt::sim::binary_image(&["ui_add"]))?;
    // SAFETY: (never launched: this case does not compile)
    let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"ui_add")? };
    let a = ctx.alloc_from(&[1.0f32, 2.0])?;
    let mut c = ctx.alloc_zeroed::<f32>(2)?;
    let mut d = ctx.alloc_zeroed::<f32>(2)?;
    ctx.scope(|s| {
        s.with_lane(&stream_a, |lane_a| {
            let (_, _, c, _) = lane_a.launch(&add, 1, (&a, &a, &mut c, 2))?;
            s.with_lane(&stream_b, |lane_b| {
                let _ = lane_b.launch(&add, 1, (&c, &a, &mut d, 2))?; // c may not be written yet
                Ok(())
            })
        })
    })?;
    Ok(())
}
