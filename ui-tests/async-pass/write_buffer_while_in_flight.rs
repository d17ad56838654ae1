// Right way: write the destination only after `InFlight::wait` has synchronised the lane.
// Why it compiles: `wait(self)` consumes the in-flight value and hands the `&mut` back once the copy has finished.
// Enforced by: `InFlight<'scope, 'sid, D>` holds the destination's `&'scope mut` borrow until `wait`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let on_device = ctx.alloc_from(&[1u32, 2, 3])?;
        let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let out = lane.copy(&on_device, &mut output)?;
            let out = out.wait()?; // the D2H copy is done
            out[0] = 7;
            Ok(())
        })?;
        assert_eq!(output.as_slice(), [7, 2, 3]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
