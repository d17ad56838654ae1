// Misuse: queue a host function (`aclrtLaunchHostFunc`) that borrows data declared inside the scope closure.
// Why it must not compile: the closure's locals die when it returns, but the host function may run later, until the scope synchronises (use after free).
// Enforced by: `Lane::host_fn` requires `F: 'scope`; locals of the closure do not live for `'scope` (E0597).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let message = String::from("hello from the stream");
        lane.host_fn(|| println!("{}", message))?;
        Ok(())
    })?;
    Ok(())
}
