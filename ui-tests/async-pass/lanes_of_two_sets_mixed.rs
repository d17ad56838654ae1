// Right way: hand the buffer from a lane of one set to a lane of another with `signal` / `wait_for`; inside one set, lanes are picked by index.
// Why it compiles: `wait_for` makes the other lane wait for the event recorded after the buffer's last use and re-brands the `InFlight`.
// Enforced by: `Scope::lanes` (one brand per set), `Lane::signal`, `Lane::wait_for`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let first = vec![ctx.create_stream()?, ctx.create_stream()?];
        let second = vec![ctx.create_stream()?];
        aclrt::sim::set_stream_delay(first[1].as_raw(), std::time::Duration::from_millis(10));
        let input = ctx.alloc_host_from(&[1u32; 16])?;
        let mut dev = ctx.alloc::<u32>(16)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(16)?;
        ctx.scope(|s| {
            make_guard!(ga);
            make_guard!(gb);
            let a = s.lanes(&first, ga);
            let b = s.lanes(&second, gb);
            let x = a[1].copy(&input, &mut dev)?; // slow
            let x = b[0].wait_for(a[1].signal(x)?)?;
            let x = b[0].memset(x, 0)?; // after the copy
            let out = b[0].copy(&x, &mut out)?.fence()?.wait()?;
            assert_eq!(out.as_slice(), [0u32; 16]);
            Ok(())
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
