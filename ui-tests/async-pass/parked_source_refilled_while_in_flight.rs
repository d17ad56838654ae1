// Right way: park the staging buffer on the lane, copy from it, take it back with `wait` (or a fence), then refill it, batch after batch in one scope.
// Why it compiles: `InFlight::wait` synchronises the lane and returns the `&'scope mut` the park took; `Lane::park` takes it again for the next batch.
// Enforced by: `Lane::park` returns an `InFlight` (a source by `&`), `InFlight::wait` / `Fence::wait` give the exclusive borrow back.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let mut staging = ctx.alloc_host_zeroed::<u32>(64)?;
        let mut dev = ctx.alloc::<u32>(64)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(64)?;
        ctx.scope(|s| {
            s.with_lane(&stream, |lane| {
                let mut st = lane.park(&mut staging)?;
                let mut d = lane.park(&mut dev)?;
                let mut o = lane.park(&mut out)?;
                for batch in 1..=3u32 {
                    let host = st.wait()?; // the copy that read it is done
                    host.fill(batch);
                    st = lane.park(host)?;
                    d = lane.copy(&st, d)?;
                    let result = lane.copy(&d, o)?.fence()?.wait()?;
                    assert_eq!(result.as_slice(), [batch; 64]);
                    o = lane.park(result)?;
                }
                Ok(())
            })
        })?;
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
