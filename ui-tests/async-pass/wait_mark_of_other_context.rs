// Right way: wait for marks of lanes of the same context; several lanes may wait for one mark.
// Why it compiles: the mark and both waiting lanes belong to one context (same brand `'id`).
// Enforced by: `Mark<'scope, 'id, 'sid>` and `Lane::wait_mark`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let streams = [ctx.create_stream()?, ctx.create_stream()?, ctx.create_stream()?];
        aclrt::sim::set_stream_delay(streams[0].as_raw(), std::time::Duration::from_millis(20));
        let input = ctx.alloc_host_from(&[5u8; 16])?;
        let mut produced = ctx.alloc::<u8>(16)?;
        let mut out1 = ctx.alloc_host_zeroed::<u8>(16)?;
        let mut out2 = ctx.alloc_host_zeroed::<u8>(16)?;
        ctx.scope(|s| {
            make_guard!(a);
            make_guard!(b);
            make_guard!(c);
            let a = s.lane(&streams[0], a);
            let b = s.lane(&streams[1], b);
            let c = s.lane(&streams[2], c);
            let p = a.copy(&input, &mut produced)?.wait()?; // produced is now plain memory again
            let mark = a.mark()?;
            b.wait_mark(mark)?;
            c.wait_mark(mark)?;
            let p: &_ = p;
            b.copy(p, &mut out1)?.wait()?;
            c.copy(p, &mut out2)?.wait()?;
            Ok(())
        })?;
        assert_eq!(out1.as_slice(), [5; 16]);
        assert_eq!(out2.as_slice(), [5; 16]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
