// Right way: touch managed memory from the host before or after the scope in which the device uses it.
// Why it compiles: the scope's borrow of the `ManagedBuffer` ends when the scope has synchronised.
// Enforced by: `Lane::copy` borrows the `ManagedBuffer` for the scope; host access needs `&`/`&mut` of it.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    {
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let mut managed = ctx.alloc_managed::<u32>(256)?;
        managed.as_mut_slice().fill(4);
        let mut on_device = ctx.alloc::<u32>(256)?;
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let _x = lane.copy(&managed, &mut on_device)?;
            Ok(())
        })?;
        managed.as_mut_slice()[0] = 1;
        let mut back = vec![0u32; 256];
        ctx.copy(&on_device, &mut back)?;
        assert!(back.iter().all(|&v| v == 4));
        assert_eq!(managed.as_slice()[0], 1);
    }
    device.reset()?;
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
