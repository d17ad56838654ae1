// Misuse: declare a kernel scalar parameter whose type is not plain data (a reference).
// Why it must not compile: the runtime copies the scalar's bytes to the device: a host address would be meaningless there (and its pointee unchecked).
// Enforced by: `Param` is implemented for `Scalar<T>` only with `T: DeviceRepr` (E0277).
use aclrt::kernel::{Count, In, Out, Scalar};
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
        let _ = &add;
        // SAFETY: (never reached: the declaration does not compile)
        let _bad = unsafe { binary.kernel::<(Scalar<&u32>, Count)>(c"ui_add")? };
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
