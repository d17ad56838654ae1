// Misuse: hand a buffer signalled on a lane of context A (device 0) to a lane of context B (device 1), in a scope nested in A's scope.
// Why it must not compile: events are for streams of one device and context; B's stream cannot wait for A's event (107003), and the buffer belongs to A.
// Enforced by: `Signal<'scope, 'id, 'sid, D>` carries the brand `'id` of its context, and `Lane::wait_for` only takes signals of its own context.
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
    let input = ctx0.alloc_host_from(&[1u32, 2, 3])?;
    let mut on_dev0 = ctx0.alloc::<u32>(3)?;
    ctx0.scope(|s0| {
        make_guard!(a);
        let a = s0.lane(&stream0, a);
        let signal = a.signal(a.copy(&input, &mut on_dev0)?)?;
        ctx1.scope(|s1| {
            make_guard!(b);
            let b = s1.lane(&stream1, b);
            let _on_b = b.wait_for(signal)?;
            Ok(())
        })
    })?;
    Ok(())
}
