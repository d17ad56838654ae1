// Misuse: hand a buffer from a lane of one scope to a lane of a scope nested in it (`Lane::wait_for` of the outer lane's `Signal`).
// Why it must not compile: the signal's event is recorded on the outer scope's stream; if another scope's deadline aborts that stream, the record is discarded and the nested lane, which is not aborted with it, would wait for ever.
// Enforced by: `Signal<'scope, 'id, 'sid, D>` is invariant in `'scope`, and `Lane::wait_for` takes only signals of its own scope.
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
            let a = s1.lane(&x, a);
            let signal = a.signal(a.copy(&input, &mut dev)?)?;
            ctx.scope(|s2| {
                make_guard!(b);
                let b = s2.lane(&y, b);
                let d = b.wait_for(signal)?;
                b.copy(&d, &mut out)?.wait()?;
                Ok(())
            })
        })?;
    }
    acl.finalize()?;
    Ok(())
}
