// Right way: with closure-branded lanes, every lane that reads a shared buffer calls `Lane::read` itself, and uses its own `Reading`.
// Why it compiles: `read` makes that lane wait for the producer; the `Reading` it returns carries that lane's brand.
// Enforced by: `Scope::with_lane`, `Lane::share`, `Lane::read`, `AsyncSource` for `&Reading` of the same lane.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let (p, q) = (ctx.create_stream()?, ctx.create_stream()?);
        aclrt::sim::set_stream_delay(p.as_raw(), std::time::Duration::from_millis(10));
        let input = ctx.alloc_host_from(&[1u8; 64])?;
        let mut dev = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s| {
            s.with_lane(&p, |lp| {
                let shared = lp.share(lp.copy(&input, &mut dev)?)?; // slow on p
                s.with_lane(&q, |lq| {
                    let reading = lq.read(&shared)?;
                    let out = lq.copy(&reading, &mut out)?.wait()?;
                    assert_eq!(out.as_slice(), [1u8; 64]);
                    Ok(())
                })
            })
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
