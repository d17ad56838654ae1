// Misuse: keep a value of the application's own type with `Scope::keep`.
// Why it must not compile: kept values are dropped together at the scope's end, last kept first; a user type could reach, through interior mutability, a value kept after it, which is already dropped.
// Enforced by: `Scope::keep` requires the sealed `aclrt::bounds::Keep`, implemented only for aclrt's events, streams, buffers and views.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    struct Mine(#[allow(dead_code)] Vec<u8>);
    let stream = ctx.create_stream()?;
    ctx.scope(|s| {
        make_guard!(l);
        let _lane = s.lane(&stream, l);
        let _m = s.keep(Mine(vec![1, 2, 3]));
        Ok(())
    })?;
    Ok(())
}
