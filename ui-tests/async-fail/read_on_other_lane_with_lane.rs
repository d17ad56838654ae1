// Misuse: with closure-branded lanes (`Scope::with_lane`), read on lane B a buffer that lane A may still be writing, without an event hand-off.
// Why it must not compile: streams run concurrently; B could copy the buffer before A has filled it.
// Enforced by: each `with_lane` closure gets its own higher-ranked brand `'sid`; `&InFlight` is an `AsyncSource` of its own lane only. The error points at the call that mixed the lanes (E0521), not at a `make_guard!` line.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (stream_a, stream_b) = (ctx.create_stream()?, ctx.create_stream()?);
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let mut shared = ctx.alloc::<u32>(3)?;
    let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
    ctx.scope(|s| {
        s.with_lane(&stream_a, |a| {
            let produced = a.copy(&input, &mut shared)?;
            s.with_lane(&stream_b, |b| {
                let _out = b.copy(&produced, &mut output)?; // may run before A's copy
                Ok(())
            })
        })
    })?;
    Ok(())
}
