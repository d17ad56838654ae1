// Right way: inside one `with_lanes` set, pick lanes by index and hand a buffer from one to another with `signal` / `wait_for`.
// Why it compiles: lanes of one set share the brand; the hand-off orders the second stream after the first (a buffer used on another lane of the set without it is `Error::WrongLane`, at run time).
// Enforced by: `Scope::with_lanes`, `Lane::signal`, `Lane::wait_for`, the run-time stream check of every operand.
use aclrt::{Acl, Error, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let streams = vec![ctx.create_stream()?, ctx.create_stream()?];
        let input = ctx.alloc_host_from(&[1u8; 64])?;
        let mut dev = ctx.alloc::<u8>(64)?;
        let mut refused = ctx.alloc_host_zeroed::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s| {
            s.with_lanes(&streams, |lanes| {
                let x = lanes[0].copy(&input, &mut dev)?;
                // Without a hand-off: refused, nothing queued.
                let y = lanes[1].copy(&x, &mut refused);
                assert!(matches!(y, Err(Error::WrongLane { .. })), "{y:?}");
                let x = lanes[1].wait_for(lanes[0].signal(x)?)?;
                let x = lanes[1].memset(x, 9)?;
                let out = lanes[1].copy(&x, &mut out)?.fence()?.wait()?;
                assert_eq!(out.as_slice(), [9u8; 64]);
                Ok(())
            })
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
