// Misuse: return an `InFlight` out of the scope closure and wait on it afterwards.
// Why it must not compile: the `InFlight` carries the buffer's `&'scope mut` borrow; letting it escape would let the buffer be reused or freed outside the scope's guarantee.
// Enforced by: the closure is `for<'scope> FnOnce(..) -> Result<R>`: `R` cannot mention `'scope`, and `InFlight<'scope, ..>` does.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
    let mut on_device = ctx.alloc::<u32>(3)?;
    let in_flight = ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        lane.copy(&input, &mut on_device)
    })?;
    let _d = in_flight.wait()?;
    Ok(())
}
