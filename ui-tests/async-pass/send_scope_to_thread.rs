// Right way: one scope per thread; share the context and streams (they are `Sync`), not the scope.
// Why it compiles: each thread opens its own `Scope` with `Context::scope`; `Context` and `Stream` are `Send + Sync`.
// Enforced by: `Scope: !Send + !Sync`; `Context`, `Stream`, `HostBuffer`, `DeviceBuffer`: `Send + Sync`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let input = ctx.alloc_host_from(&[1u32, 2, 3])?;
        let mut on_device = ctx.alloc::<u32>(3)?;
        let mut output = ctx.alloc_host_zeroed::<u32>(3)?;
        std::thread::scope(|t| {
            t.spawn(|| {
                ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(&stream, l);
                    let d = lane.copy(&input, &mut on_device)?;
                    let _out = lane.copy(&d, &mut output)?;
                    Ok(())
                })
            })
            .join()
            .unwrap()
        })?;
        assert_eq!(output.as_slice(), [1, 2, 3]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
