// Misuse: read, on stream B, a buffer that stream A may still be writing, without an event hand-off.
// Why it must not compile: streams run concurrently; B could copy the buffer before A has filled it.
// Enforced by: `&InFlight<'scope, 'a, D>` is an `AsyncSource` of lane A (brand `'a`) only; B needs `Lane::wait_for(signal)`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream_a = ctx.create_stream()?;
    let stream_b = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let mut shared = ctx.alloc::<u32>(3)?;
    let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
    ctx.scope(|s| {
        make_guard!(a);
        make_guard!(b);
        let a = s.lane(&stream_a, a);
        let b = s.lane(&stream_b, b);
        let produced = a.copy(&input, &mut shared)?;
        let _out = b.copy(&produced, &mut output)?; // may run before A's copy
        Ok(())
    })?;
    Ok(())
}
