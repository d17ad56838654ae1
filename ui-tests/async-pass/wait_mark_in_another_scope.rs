// Right way: wait for a mark on a lane of the mark's own scope; a nested scope that depends on the work enlists the stream it needs itself, or waits for the outer lane with `Lane::synchronize` first.
// Why it compiles: the mark and the waiting lane share the scope's lifetime `'scope`, so an abort of the scope's streams aborts the waiting lane with them.
// Enforced by: `Mark<'scope, 'id, 'sid>` (invariant in `'scope`) and `Lane::wait_mark`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let (x, y) = (ctx.create_stream()?, ctx.create_stream()?);
        let input = ctx.alloc_host_from(&[3u8; 64])?;
        let mut dev = ctx.alloc::<u8>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s1| {
            make_guard!(a);
            make_guard!(b);
            let (a, b) = (s1.lane(&x, a), s1.lane(&y, b));
            let d = a.copy(&input, &mut dev)?;
            a.synchronize()?;
            let mark = a.mark()?;
            b.wait_mark(mark)?;
            let d = d.wait()?;
            ctx.scope(|s2| {
                make_guard!(c);
                let c = s2.lane(&y, c);
                c.copy(&*d, &mut out)?.wait()?;
                Ok(())
            })
        })?;
        assert_eq!(out.as_slice(), &[3u8; 64]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
