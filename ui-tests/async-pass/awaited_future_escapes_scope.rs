// Right way: await the future inside the scope (an async body run by the executor of your choice) and return plain data.
// Why it compiles: the future and the `&mut` it gives back live inside the closure; only the copied-out value leaves.
// Enforced by: `InFlightWait<'scope, ..>` and its output name `'scope`.
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
        let mut back = ctx.alloc_host_zeroed::<u32>(3)?;
        let first = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            aclrt::future::block_on(async {
                let d = lane.copy(&input, &mut on_device)?;
                let back = lane.copy(&d, &mut back)?.wait_async().await?;
                Ok(back.as_slice()[0])
            })
        })?;
        assert_eq!(first, 1);
        stream.destroy()?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
