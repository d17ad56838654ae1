//! Two streams ordered by an event: stream A produces a buffer, records an
//! event; stream B waits for the event (`aclrtStreamWaitEvent`) and consumes
//! the buffer. The hand-off is in the types: a buffer in flight on A cannot
//! be named on B except through `signal`/`wait_for`. On the simulator the
//! first stream is slowed down to show that the wait really orders them.

use std::time::Duration;

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

/// How long each task of the producer is delayed on the simulator.
const DELAY: Duration = Duration::from_millis(20);

fn run<M: RunMode>(rt: Runtime<'_, M>, delay: Duration) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let producer = ctx.create_stream()?;
    let consumer = ctx.create_stream()?;
    aclrt::sim_only! { aclrt::sim::set_stream_delay(producer.as_raw(), delay); }
    aclrt::not_sim! { let _ = delay; }

    let input = ctx.alloc_host_from(&(0..4096u32).collect::<Vec<_>>())?;
    let mut shared = ctx.alloc::<u32>(4096)?;
    let mut output = ctx.alloc_host_zeroed::<u32>(4096)?;
    ctx.scope(|s| {
        make_guard!(a);
        make_guard!(b);
        let a = s.lane(&producer, a);
        let b = s.lane(&consumer, b);
        let produced = a.copy(&input, &mut shared)?; // slow on A
        let signal = a.signal(produced)?; // aclrtRecordEvent on A
        let handed = b.wait_for(signal)?; // aclrtStreamWaitEvent on B
        let out = b.copy(&handed, &mut output)?; // runs only after A's copy
        let out = out.wait()?;
        assert!(
            out.iter().enumerate().all(|(i, v)| v == i as u32),
            "B saw A's data"
        );
        Ok(())
    })?;
    println!("consumer read all 4096 values written by the producer");
    Ok(())
}

/// The example between `Acl::init` and `finalize`.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    flow_with_delay(acl, DELAY)
}

/// [`flow`] with the producer's tasks delayed by `delay` on the simulator.
/// `tests/failure_rule/sweep.rs` runs it (with a shorter delay: the same
/// calls in the same order), with each of its C calls made to fail once.
pub fn flow_with_delay(acl: &Acl, delay: Duration) -> aclrt::Result<()> {
    match acl.detect() {
        Detected::Host(rt) => run(rt, delay),
        Detected::Device(rt) => run(rt, delay),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("09_two_streams_event: OK");
    Ok(())
}
