// Misuse: with closure-branded lane sets (`Scope::with_lanes`), write on a lane of the inner set a buffer in flight on a lane of the outer set, without a hand-off.
// Why it must not compile: the inner lane's work could run while the outer lane's copy still writes the buffer.
// Enforced by: each `with_lanes` closure gets its own higher-ranked brand `'sid` for its set; the error points at the call that mixed the sets (E0521), not at a `make_guard!` line.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let outer = vec![ctx.create_stream()?, ctx.create_stream()?];
    let inner = vec![ctx.create_stream()?, ctx.create_stream()?];
    let input = ctx.alloc_host_from(&[1u8; 64])?;
    let mut dev = ctx.alloc::<u8>(64)?;
    ctx.scope(|s| {
        s.with_lanes(&outer, |a| {
            let x = a[0].copy(&input, &mut dev)?;
            s.with_lanes(&inner, |b| {
                let _ = b[1].memset(x, 0)?; // in flight on a lane of the outer set
                Ok(())
            })
        })
    })?;
    Ok(())
}
