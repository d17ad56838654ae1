// Misuse: duplicate a stream, so that two owners would each destroy the same handle.
// Why it must not compile: the second `aclrtDestroyStream` of one handle is a double destroy.
// Enforced by: `Stream` implements neither `Clone` nor `Copy`: one value, one owner.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let twin = stream.clone();
    stream.destroy()?;
    twin.destroy()?;
    Ok(())
}
