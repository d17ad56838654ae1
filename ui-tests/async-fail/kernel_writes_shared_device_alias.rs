// Misuse: pass the shared device alias of registered host memory (`HostRegistration::device_alias`) for a kernel parameter the kernel writes (`Out`), and read the memory on the CPU meanwhile.
// Why it must not compile: the kernel would write the user's memory while the CPU (or a copy) may read it; writes need the registration held exclusively.
// Enforced by: `KernelArg<Out<T>>` is implemented for `DeviceAliasMut` (from `device_alias_mut(&mut self)`), not for the `Copy` alias `DeviceAlias` (E0277).
use aclrt::kernel::{Count, In, Out};
use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};

fn main() -> aclrt::Result<()> {
    aclrt::sim::register_kernel("ui_add", |_, _, _| Ok(()));
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let binary = ctx.load_binary(&aclrt::sim::binary_image(&["ui_add"]))?;
    // SAFETY: ui_add reads a, b and writes c, each below n.
    let add = unsafe { binary.kernel::<(In<f32>, In<f32>, Out<f32>, Count)>(c"ui_add")? };
    let a = ctx.alloc_from(&[1.0f32; 1024])?;
    let mut user = PageAlignedBuf::<f32>::zeroed(1024)?;
    let reg = ctx.register_host(&mut user)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        lane.launch(&add, 1, (&a, &a, reg.device_alias(), 1024))?;
        let _peek = reg.as_slice()[0]; // the kernel may be writing it
        Ok(())
    })?;
    Ok(())
}
