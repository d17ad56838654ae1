//! Explicit allocation and release of runtime resources, in the only legal
//! order: stream → context → device → finalize (`aclrtCreateContext`,
//! `aclrtCreateStream`, `aclrtDestroyStream`, `aclrtDestroyContext`,
//! `aclrtResetDevice`, `aclFinalize`). Each `destroy`/`reset`/`finalize`
//! returns the error that `Drop` would have to swallow.
//!
//! The compiler enforces the order: try moving `ctx.destroy()?` above
//! `stream.destroy()?` and it refuses (the stream borrows the context).

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?; // aclrtSetDevice
    make_guard!(guard);
    let ctx = device.create_context(guard)?; // aclrtCreateContext
    let stream = ctx.create_stream()?; // aclrtCreateStream
    let buffer = ctx.alloc::<u8>(1 << 20)?; // aclrtMalloc
    println!(
        "created context {:?}, stream {:?}, 1 MiB buffer",
        ctx.as_raw(),
        stream.as_raw()
    );
    stream.synchronize()?;
    assert!(stream.is_complete()?, "an idle stream reports complete");

    buffer.free()?; // aclrtFree
    stream.destroy()?; // aclrtDestroyStream
    ctx.destroy()?; // aclrtDestroyContext
    device.reset()?; // aclrtResetDevice
    Ok(())
}

/// The example between `Acl::init` and `finalize`. `tests/failure_rule/sweep.rs`
/// runs it too, with each of its C calls made to fail once.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?; // aclInit
    flow(&acl)?;
    acl.finalize()?; // aclFinalize
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("02_explicit_resources: OK");
    Ok(())
}
