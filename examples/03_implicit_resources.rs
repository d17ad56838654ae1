//! Implicit (default) context and stream: `aclrtSetDevice` creates the
//! device's default context, which has a default stream. Neither can be
//! destroyed (there is no method for it, and the compiler refuses to move
//! them out of their views); `aclrtResetDevice` releases them.

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?; // aclrtSetDevice: default context + stream
    make_guard!(guard);
    let ctx = device.default_context(guard); // a view, not an owner
    let stream = ctx.default_stream()?; // aclrtCtxGetCurrentDefaultStream
    let data: Vec<i32> = (0..256).collect();
    let on_device = ctx.alloc_from(&data)?; // aclrtMalloc + aclrtMemcpy
    let mut back = vec![0i32; data.len()];
    ctx.copy(&on_device, &mut back)?;
    stream.synchronize()?;
    assert_eq!(back, data, "round trip through the default context");
    println!(
        "default context {:?}, default stream {:?}",
        ctx.as_raw(),
        stream.as_raw()
    );
    drop(on_device);
    device.reset()?; // releases the default context and stream
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
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("03_implicit_resources: OK");
    Ok(())
}
