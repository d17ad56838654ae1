//! Stream synchronisation: queue work on a stream, poll it, and block the host
//! until the stream is idle (`aclrtMemcpyAsync`, `aclrtStreamQuery`,
//! `aclrtSynchronizeStream`, `aclrtSynchronizeStreamWithTimeout`).

use std::time::Duration;

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let n = 8 << 20;
    let src = ctx.alloc_host_from(&vec![1u32; n / 4])?;
    let mut dst = ctx.alloc::<u32>(n / 4)?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _in_flight = lane.copy(&src, &mut dst)?;
        println!(
            "right after queueing: stream complete = {}",
            lane.is_complete()?
        );
        stream.synchronize_timeout(Duration::from_secs(10))?; // aclrtSynchronizeStreamWithTimeout
        assert!(lane.is_complete()?, "idle after synchronize");
        Ok(())
    })?;
    let mut back = vec![0u32; n / 4];
    ctx.copy(&dst, &mut back)?;
    assert!(back.iter().all(|&v| v == 1));
    stream.synchronize()?; // aclrtSynchronizeStream on an idle stream returns at once
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
    println!("08_stream_sync: OK");
    Ok(())
}
