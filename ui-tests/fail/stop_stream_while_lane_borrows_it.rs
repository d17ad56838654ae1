// Misuse: stop a stream (`Stream::stop`, `aclrtStreamStop`) inside a scope that has it as a lane.
// Why it must not compile: stopping discards the lane's queued tasks, while the scope counts on them (its buffers' writes, its hand-offs' records) to run.
// Enforced by: `Stream::stop` takes `&mut self`, and the lane borrows the stream for the whole scope.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let mut stream = ctx.create_stream()?;
    let mut buf = ctx.alloc::<u8>(64)?;
    ctx.scope(|s| {
        s.with_lane(&stream, |lane| {
            let _queued = lane.memset(&mut buf, 0)?;
            stream.stop()
        })
    })?;
    Ok(())
}
