// Right way: hand the buffer from lane A to lane B with `signal` / `wait_for`, also with closure-branded lanes.
// Why it compiles: `wait_for` re-brands the buffer for lane B after lane B waits for A's event.
// Enforced by: `Lane::signal` / `Lane::wait_for` (the only way an `InFlight` changes lanes).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[1u8; 64])?;
        let mut dev = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s| {
            s.with_lane(&a, |la| {
                let x = la.copy(&input, &mut dev)?;
                let signal = la.signal(x)?;
                s.with_lane(&b, |lb| {
                    let x = lb.wait_for(signal)?;
                    let x = lb.memset(x, 7)?;
                    let _ = lb.copy(&x, &mut out)?;
                    Ok(())
                })
            })
        })?;
        assert!(out.iter().all(|v| v == 7));
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
