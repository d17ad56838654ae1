// Misuse: with closure-branded lanes (`Scope::with_lane`), write on lane B a buffer that is in flight on lane A, without a hand-off.
// Why it must not compile: lane B's work could run while lane A's copy still writes the buffer.
// Enforced by: each `with_lane` closure gets its own higher-ranked brand `'sid`; `AsyncDest` for an `InFlight` needs the brand of the lane it is used on. The error points at the call that mixed the lanes (E0521), not at a `make_guard!` line.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let input = ctx.alloc_host_from(&[1u8; 64])?;
    let mut dev = ctx.alloc::<u8>(64)?;
    ctx.scope(|s| {
        s.with_lane(&a, |la| {
            let x = la.copy(&input, &mut dev)?;
            s.with_lane(&b, |lb| {
                let _ = lb.memset(x, 0)?; // in flight on lane a
                Ok(())
            })
        })
    })?;
    Ok(())
}
