// Right way: a detached thread gets only owned, `'static` data; it reports back through a channel.
// Why it compiles: nothing borrowed from the scope goes into `std::thread::spawn`.
// Enforced by: `Scope: !Sync`, `&'scope Scope: !'static`.
use std::sync::mpsc;

use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let on_device = ctx.alloc_from(&[5u32, 6])?;
        let mut staging = ctx.alloc_host_zeroed::<u32>(2)?;
        let (tx, rx) = mpsc::channel();
        let worker = std::thread::spawn(move || rx.recv().map(|v: Vec<u32>| v.iter().sum::<u32>()));
        ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            let out = lane.copy(&on_device, &mut staging)?.wait()?;
            tx.send(out.to_vec()).unwrap();
            Ok(())
        })?;
        assert_eq!(worker.join().unwrap(), Ok(11));
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
