// Right way: keep a binary and the kernel references looked up in it together (one struct), and launch them on lanes of the binary's context.
// Why it compiles: the reference's brand is its context's; `launch_in` borrows the binary for the scope and checks at run time that the reference is of that very binary (`Error::ForeignKernel` otherwise).
// Enforced by: `Binary::kernel_ref`, `KernelRef<'id, P>`, `Lane::launch_in`.
use aclrt::kernel::{Binary, Count, In, KernelRef, Out};
use aclrt::{Acl, Error, HostMode, make_guard};

struct Model<'ctx, 'id> {
    binary: Binary<'ctx, 'id>,
    copy: KernelRef<'id, (In<f32>, Out<f32>, Count)>,
}

fn main() -> aclrt::Result<()> {
    aclrt::sim::register_kernel("ui_kref_copy", |block, blocks, args| {
        let (x, y, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)?);
        for i in (block as usize..n as usize).step_by(blocks as usize) {
            args.write_f32(y, i, args.read_f32(x, i)?)?;
        }
        Ok(())
    });
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let image = aclrt::sim::binary_image(&["ui_kref_copy"]);
        let binary = ctx.load_binary(&image)?;
        // SAFETY: `ui_kref_copy` reads `In` and writes `Out` below `Count`, nothing else.
        let copy = unsafe { binary.kernel_ref(c"ui_kref_copy")? };
        let model = Model { binary, copy };
        let other = ctx.load_binary(&image)?;
        let stream = ctx.create_stream()?;
        let x = ctx.alloc_from(&[1.5f32; 8])?;
        let mut y = ctx.alloc::<f32>(8)?;
        let mut y2 = ctx.alloc::<f32>(8)?;
        let mut out = ctx.alloc_host_zeroed::<f32>(8)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let r = lane.launch_in(&other, model.copy, 1, (&x, &mut y2, 8));
                assert!(matches!(r, Err(Error::ForeignKernel)));
                let (_, y, _) = lane.launch_in(&model.binary, model.copy, 2, (&x, &mut y, 8))?;
                lane.copy(&y, &mut out)?.wait()?;
                Ok(())
            })
        })?;
        assert_eq!(out.as_slice(), [1.5f32; 8]);
        other.unload()?;
        model.binary.unload()?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
