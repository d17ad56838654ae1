// Misuse: hand a context to a worker started with `std::thread::spawn`.
// Why it must not compile: a spawned thread may outlive `main`'s frame, and with it the device and `Acl` the context borrows; nothing would join it before the context is destroyed.
// Enforced by: `std::thread::spawn` requires `'static`; `&Context<'dev, 'id, M>` borrows a local (E0597).
use aclrt::{Acl, HostMode, make_guard};

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let ctx_ref = &ctx;
    let worker = std::thread::spawn(move || ctx_ref.create_stream().map(drop));
    worker.join().unwrap()?;
    Ok(())
}
