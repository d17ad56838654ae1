// Misuse: write, on a lane of one set (`Scope::lanes`), a buffer in flight on a lane of another set, without an event hand-off.
// Why it must not compile: the two streams run concurrently; without `aclrtStreamWaitEvent` the writes race.
// Enforced by: each set is branded `'sid` by its own `make_guard!`, and `AsyncDest` for an `InFlight` needs the brand of the lane it is used on; within one set the stream is checked at run time (`Error::WrongLane`).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let first = vec![ctx.create_stream()?, ctx.create_stream()?];
    let second = vec![ctx.create_stream()?];
    let input = ctx.alloc_host_from(&[1u32; 16])?;
    let mut dev = ctx.alloc::<u32>(16)?;
    ctx.scope(|s| {
        make_guard!(ga);
        make_guard!(gb);
        let a = s.lanes(&first, ga);
        let b = s.lanes(&second, gb);
        let x = a[1].copy(&input, &mut dev)?;
        let _ = b[0].memset(x, 0)?; // in flight on a lane of set a
        Ok(())
    })?;
    Ok(())
}
