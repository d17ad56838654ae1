// Misuse: make a lane of context B (device 1) wait for a `Mark` recorded on a lane of context A (device 0), in a scope nested in A's scope.
// Why it must not compile: events order streams of one device and context; B's stream cannot wait for A's event (107003).
// Enforced by: `Mark<'scope, 'id, 'sid>` carries the brand `'id` of its context, and `Lane::wait_mark` only takes marks of its own context.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let rt = acl.require::<HostMode>()?;
    let (dev0, dev1) = (rt.device(0)?, rt.device(1)?);
    make_guard!(g0);
    let ctx0 = dev0.create_context(g0)?;
    make_guard!(g1);
    let ctx1 = dev1.create_context(g1)?;
    let (stream0, stream1) = (ctx0.create_stream()?, ctx1.create_stream()?);
    ctx0.scope(|s0| {
        make_guard!(a);
        let a = s0.lane(&stream0, a);
        let mark = a.mark()?;
        ctx1.scope(|s1| {
            make_guard!(b);
            let b = s1.lane(&stream1, b);
            b.wait_mark(mark)?;
            Ok(())
        })
    })?;
    Ok(())
}
