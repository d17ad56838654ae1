//! Two streams ordered by an event: stream A produces a buffer, records an
//! event; stream B waits for the event (`aclrtStreamWaitEvent`) and consumes
//! the buffer. The hand-off is in the types: a buffer in flight on A cannot
//! be named on B except through `signal`/`wait_for`. On the simulator the
//! first stream is slowed down to show that the wait really orders them.

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let producer = ctx.create_stream()?;
    let consumer = ctx.create_stream()?;
    aclrt::sim_only! { aclrt::sim::set_stream_delay(producer.as_raw(), std::time::Duration::from_millis(20)); }

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
    println!("09_two_streams_event: OK");
    Ok(())
}
