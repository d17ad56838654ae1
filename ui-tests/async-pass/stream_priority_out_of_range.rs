// Right way: build the priority with `StreamPriority::new` (which refuses 9) or a constant, and read it back with `Stream::priority`.
// Why it compiles: `StreamPriority::new(p)` gives `Some` only for 0..=7; the stream gets exactly that priority.
// Enforced by: the `StreamPriority` parameter of `Context::create_stream_with_config`.
use aclrt::{Acl, HostMode, StreamFlags, StreamPriority, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        assert_eq!(StreamPriority::new(9), None);
        let lowest = StreamPriority::new(7).expect("0..=7");
        let stream = ctx.create_stream_with_config(lowest, StreamFlags::NONE)?;
        assert_eq!(stream.priority()?, StreamPriority::LOWEST); // aclrtStreamGetPriority
        let range = device.stream_priority_range()?; // aclrtDeviceGetStreamPriorityRange
        assert!(range.contains(lowest));
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
