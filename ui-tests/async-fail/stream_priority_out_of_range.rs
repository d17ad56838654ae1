// Misuse: create a stream with a raw priority number (`aclrtCreateStreamWithConfig(&stream, 9, 0)`).
// Why it must not compile: the runtime silently clamps priorities outside 0..=7 (9 becomes 7, 2^31 becomes 0), so the stream would not get what the code says.
// Enforced by: `Context::create_stream_with_config` takes a `StreamPriority`, which holds only 0..=7 (E0308 for an integer).
use aclrt::{Acl, HostMode, StreamFlags, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let _stream = ctx.create_stream_with_config(9, StreamFlags::NONE)?;
    Ok(())
}
