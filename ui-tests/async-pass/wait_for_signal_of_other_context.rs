// Right way: hand buffers only between lanes of one context; move data to another device with a peer copy.
// Why it compiles: both lanes belong to context 0; the copy to device 1 goes through `copy_to_peer` with enabled peer access.
// Enforced by: `Signal<'scope, 'id, 'sid, D>` / `Lane::wait_for` (same `'id`), `PeerAccess` for cross-device copies.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let rt = acl.require::<HostMode>()?;
        let (dev0, dev1) = (rt.device(0)?, rt.device(1)?);
        make_guard!(g0);
        let ctx0 = dev0.create_context(g0)?;
        make_guard!(g1);
        let ctx1 = dev1.create_context(g1)?;
        let (a_stream, b_stream) = (ctx0.create_stream()?, ctx0.create_stream()?);
        let input = ctx0.alloc_host_from(&[1u32, 2, 3])?;
        let mut on_dev0 = ctx0.alloc::<u32>(3)?;
        let mut staged = ctx0.alloc::<u32>(3)?;
        ctx0.scope(|s| {
            make_guard!(a);
            make_guard!(b);
            let a = s.lane(&a_stream, a);
            let b = s.lane(&b_stream, b);
            let signal = a.signal(a.copy(&input, &mut on_dev0)?)?;
            let on_b = b.wait_for(signal)?;
            b.copy(&on_b, &mut staged)?.wait()?;
            Ok(())
        })?;
        let access = dev0.enable_peer_access(&dev1)?;
        let mut on_dev1 = ctx1.alloc::<u32>(3)?;
        ctx0.copy_to_peer(&access, &ctx1, &staged, &mut on_dev1)?;
        let mut back = [0u32; 3];
        ctx1.copy(&on_dev1, &mut back)?;
        assert_eq!(back, [1, 2, 3]);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
