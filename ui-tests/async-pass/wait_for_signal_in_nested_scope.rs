// Right way: hand the buffer over between lanes of one scope, or give it back to the CPU (`InFlight::wait`) before a nested scope uses it.
// Why it compiles: the signal and the waiting lane share the scope's lifetime `'scope`; after `wait` the buffer is a plain `&mut`, which any scope may borrow.
// Enforced by: `Signal<'scope, 'id, 'sid, D>` (invariant in `'scope`) and `Lane::wait_for`.
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
        let mut out2 = ctx.alloc_host_zeroed::<u8>(64)?;
        ctx.scope(|s1| {
            make_guard!(a);
            make_guard!(b);
            let (a, b) = (s1.lane(&x, a), s1.lane(&y, b));
            let signal = a.signal(a.copy(&input, &mut dev)?)?;
            let d = b.wait_for(signal)?;
            let _ = b.copy(&d, &mut out)?;
            let d = d.wait()?;
            ctx.scope(|s2| {
                make_guard!(c);
                let c = s2.lane(&y, c);
                c.copy(&*d, &mut out2)?.wait()?;
                Ok(())
            })
        })?;
        assert_eq!(out.as_slice(), &[3u8; 64]);
        assert_eq!(out2.as_slice(), &[3u8; 64]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
