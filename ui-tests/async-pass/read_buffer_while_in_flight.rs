// Right way: get the destination back with `InFlight::wait` before reading it, or read it after the scope.
// Why it compiles: `wait(self)` synchronises the lane and only then turns the in-flight value back into `&mut`.
// Enforced by: `InFlight<'scope, 'sid, D>` holds the `&'scope mut` borrow; `InFlight::wait` returns it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
        let mut on_device = ctx.alloc::<u32>(3)?;
        let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let d = lane.copy(&input, &mut on_device)?;
            let out = lane.copy(&d, &mut output)?;
            let out = out.wait()?; // synchronised: the CPU may read it now
            assert_eq!(out[0], 1);
            Ok(())
        })?;
        assert_eq!(output.as_slice(), [1, 2, 3]); // after the scope: all done
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
