// Right way: force-destroy a stream only after the scopes that used it are over.
// Why it compiles: the scope synchronised and its lanes' borrows of the stream ended, so no borrowed buffer has work queued on it.
// Enforced by: a `Lane` borrows its `Stream` for the scope; `Stream::destroy_force(self)` takes the stream by value.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    {
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[3u32; 256])?;
        let mut on_device = ctx.alloc::<u32>(256)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _x = lane.copy(&input, &mut on_device)?;
            Ok(())
        })?;
        stream.destroy_force()?;
        let mut back = vec![0u32; 256];
        ctx.copy(&on_device, &mut back)?;
        assert!(back.iter().all(|&v| v == 3));
    }
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
