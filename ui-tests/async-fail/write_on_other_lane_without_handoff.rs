// Misuse: write, on stream B, a buffer that stream A may still be writing, without an event hand-off.
// Why it must not compile: streams run concurrently; without `aclrtStreamWaitEvent` the two writes race and the result is unspecified.
// Enforced by: `InFlight<'scope, 'a, D>` is branded with lane A's invariant `'sid`; it is an `AsyncDest` of lane A only.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream_a = ctx.create_stream()?;
    let stream_b = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let ones = ctx.alloc_host_from(&[1u32, 1, 1])?;
    let mut shared = ctx.alloc::<u32>(3)?;
    ctx.scope(|s| {
        make_guard!(a);
        make_guard!(b);
        let a = s.lane(&stream_a, a);
        let b = s.lane(&stream_b, b);
        let produced = a.copy(&input, &mut shared)?;
        let _again = b.copy(&ones, produced)?; // no wait on A's work
        Ok(())
    })?;
    Ok(())
}
