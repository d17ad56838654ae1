// Misuse: read one element of pinned host memory that was never initialised.
// Why it must not compile: `aclrtMallocHost` returns uninitialised memory; reading it is undefined behaviour in Rust.
// Enforced by: `HostBufferUninit` implements no `Index` and no `Deref`.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let pinned = ctx.alloc_host_uninit::<u8>(64)?;
    let first: u8 = pinned[0];
    println!("{first}");
    Ok(())
}
