// Misuse: read pinned host memory (`aclrtMallocHost`) that was never initialised, through a slice.
// Why it must not compile: `aclrtMallocHost` returns uninitialised memory; reading it is undefined behaviour in Rust.
// Enforced by: `HostBufferUninit` has no `as_slice` and no `Deref`; it becomes a readable `HostBuffer` only by being initialised.
use aclrt::{Acl, HostMode, make_guard};

fn main() -> Result<(), aclrt::Error> {
    let acl = Acl::init()?;
    let device = acl.require::<HostMode>()?.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let pinned = ctx.alloc_host_uninit::<f32>(4)?;
    let values: &[f32] = pinned.as_slice();
    println!("{values:?}");
    Ok(())
}
