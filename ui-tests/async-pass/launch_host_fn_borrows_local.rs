// Right way: give an unscoped host function owned data (`move`), and a channel to report back.
// Why it compiles: the closure owns everything it uses, so it is `'static`.
// Enforced by: the `F: Send + 'static` bound of `Stream::launch_host_fn`.
use std::sync::mpsc;

use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    {
        let device = acl.require::<HostMode>()?.device(0)?;
        make_guard!(guard);
        let ctx = device.create_context(guard)?;
        let stream = ctx.create_stream()?;
        let data = [1u32, 2, 3];
        let (tx, rx) = mpsc::channel();
        stream.launch_host_fn(move || tx.send(data.iter().sum::<u32>()).unwrap())?;
        stream.synchronize()?;
        assert_eq!(rx.recv().unwrap(), 6);
    }
    acl.finalize()?;
    aclrt::sim::audit().assert_clean();
    Ok(())
}
