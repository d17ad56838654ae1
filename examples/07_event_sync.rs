//! Event synchronisation: record an event after queued work and block the
//! host on it; time the work between two timing events
//! (`aclrtCreateEvent`, `aclrtRecordEvent`, `aclrtSynchronizeEvent`,
//! `aclrtQueryEventStatus`, `aclrtEventElapsedTime`).

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stream = ctx.create_stream()?;
    let src = ctx.alloc_host_from(&vec![5u8; 1 << 20])?;
    let mut dst = ctx.alloc::<u8>(1 << 20)?;
    let mut back = ctx.alloc_host_zeroed::<u8>(1 << 20)?;

    let start = stream.record(ctx.create_event()?)?; // before the work
    let end = ctx.create_event()?;
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let d = lane.copy(&src, &mut dst)?;
        let _back = lane.copy(&d, &mut back)?;
        // The event captures both copies; the host blocks on it, not on the stream.
        let recorded = lane.record(end)?; // aclrtRecordEvent: Unrecorded -> Recorded
        recorded.synchronize()?; // aclrtSynchronizeEvent
        assert!(recorded.is_complete()?, "complete after synchronize");
        let ms = recorded.elapsed_since(&start)?; // aclrtEventElapsedTime
        println!("two 1 MiB copies took {ms:.3} ms (event timing)");
        assert!(ms >= 0.0);
        Ok(())
    })?;
    assert!(back.iter().all(|b| b == 5), "data arrived");
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
    println!("07_event_sync: OK");
    Ok(())
}
