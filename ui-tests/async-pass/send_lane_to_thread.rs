// Right way: each thread opens its own scope and lane on its own stream; results come back after the threads join.
// Why it compiles: only `Send + Sync` values (context, streams, buffers) cross threads; lanes stay where they were made.
// Enforced by: `Lane: !Send`; `Context`, `Stream`, buffers: `Send + Sync`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let streams = [ctx.create_stream()?, ctx.create_stream()?];
        let inputs = [
            ctx.alloc_host_from(&[1u32, 2])?,
            ctx.alloc_host_from(&[3u32, 4])?,
        ];
        let mut outputs = [ctx.alloc::<u32>(2)?, ctx.alloc::<u32>(2)?];
        std::thread::scope(|t| {
            let mut handles = Vec::new();
            for ((stream, input), output) in streams.iter().zip(&inputs).zip(&mut outputs) {
                let ctx = &ctx;
                handles.push(t.spawn(move || {
                    ctx.scope(|s| {
                        make_guard!(l);
                        let lane = s.lane(stream, l);
                        let _out = lane.copy(input, output)?;
                        Ok(())
                    })
                }));
            }
            handles.into_iter().try_for_each(|h| h.join().unwrap())
        })?;
        let mut back = [[0u32; 2]; 2];
        ctx.copy(&outputs[0], &mut back[0])?;
        ctx.copy(&outputs[1], &mut back[1])?;
        assert_eq!(back, [[1, 2], [3, 4]]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
