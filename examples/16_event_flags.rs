//! The event-synchronisation flow of the reference documentation, with the
//! event kinds of `aclrtCreateEventExWithFlag`:
//!
//! * `ACL_EVENT_TIME_LINE` ([`ExTimeLine`]) times the whole flow;
//! * `ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE` ([`ExSyncTimed`]) is recorded on
//!   the producer stream after a step of its work, and the consumer stream
//!   waits for it (`aclrtStreamWaitEvent`) before it goes on;
//! * `ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE`
//!   ([`ExProgressTimed`]) watches how far the producer has got
//!   (`aclrtQueryEventStatus`, `aclrtSynchronizeEvent`).
//!
//! The streams are created with priorities (`aclrtCreateStreamWithConfig`;
//! 0 is the highest) and read them back (`aclrtStreamGetPriority`). The kinds
//! decide at compile time what each event can do: the progress event cannot
//! be waited on by a stream, the time-line event cannot be reset, and so on
//! (see `ui-tests/async-fail/wait_on_progress_event.rs`). On the simulator
//! the producer is slowed down, so the waits really order the work; the flow
//! ends with checks of the data, of the order and of the timestamps.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use aclrt::{
    Acl, Detected, ExProgressTimed, ExSyncTimed, ExTimeLine, RunMode, Runtime, StreamFlags,
    StreamPriority, make_guard,
};

fn run<M: RunMode>(rt: Runtime<'_, M>, delay: Duration) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    let range = device.stream_priority_range()?; // aclrtDeviceGetStreamPriorityRange
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    // A producer of the highest priority and a consumer of a lower one.
    let producer = ctx.create_stream_with_config(StreamPriority::HIGHEST, StreamFlags::NONE)?;
    let consumer_priority = StreamPriority::new(4).expect("4 is in 0..=7");
    let consumer = ctx.create_stream_with_config(consumer_priority, StreamFlags::NONE)?;
    assert_eq!(producer.priority()?, StreamPriority::HIGHEST); // aclrtStreamGetPriority
    assert_eq!(consumer.priority()?, consumer_priority);
    assert!(range.contains(consumer_priority));
    aclrt::sim_only! { aclrt::sim::set_stream_delay(producer.as_raw(), delay); }

    // TIME_LINE: the start of the flow.
    let start = producer.record(ctx.create_event_of::<ExTimeLine>()?)?;

    // A step of the producer's work (here a host function), then a SYNC
    // event after it: aclrtCreateEventExWithFlag(&ready, SYNC | TIME_LINE).
    let step = Arc::new(AtomicU32::new(0));
    let done = Arc::clone(&step);
    producer.launch_host_fn(move || done.store(1, Ordering::SeqCst))?;
    let ready = producer.record(ctx.create_event_of::<ExSyncTimed>()?)?;

    let data: Vec<u32> = (0..8192u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let input = ctx.alloc_host_from(&data)?;
    let mut on_device = ctx.alloc::<u32>(data.len())?;
    let mut output = ctx.alloc_host_zeroed::<u32>(data.len())?;
    let seen = AtomicU32::new(u32::MAX);
    let progress = ctx.scope(|s| {
        make_guard!(p);
        make_guard!(c);
        let p = s.lane(&producer, p);
        let c = s.lane(&consumer, c);
        // The consumer waits for the producer's step (aclrtStreamWaitEvent).
        c.wait_event(&ready)?;
        c.host_fn(|| seen.store(step.load(Ordering::SeqCst), Ordering::SeqCst))?;

        // The producer uploads; a progress event records how far it got.
        let uploaded = p.copy(&input, &mut on_device)?;
        let progress = p.record(ctx.create_event_of::<ExProgressTimed>()?)?;
        println!(
            "upload finished when first asked: {}",
            progress.is_complete()? // aclrtQueryEventStatus
        );
        progress.synchronize()?; // aclrtSynchronizeEvent: the upload is done
        assert!(progress.is_complete()?);

        // The buffer itself crosses streams by a typed hand-off (which
        // records and waits a SYNC event for us).
        let handed = c.wait_for(p.signal(uploaded)?)?;
        let out = c.copy(&handed, &mut output)?;
        out.wait()?;
        Ok(progress)
    })?;
    let end = consumer.record(ctx.create_event_of::<ExTimeLine>()?)?;
    end.synchronize()?;

    // The checks: data, order, time.
    let mut back = vec![0u32; data.len()];
    ctx.copy(&output, &mut back)?;
    assert_eq!(back, data, "the consumer read what the producer uploaded");
    assert_eq!(
        seen.load(Ordering::SeqCst),
        1,
        "the consumer's step ran after the producer's"
    );
    let (t_start, t_ready, t_progress, t_end) = (
        start.timestamp()?, // aclrtEventGetTimestamp: time since device boot
        ready.timestamp()?,
        progress.timestamp()?,
        end.timestamp()?,
    );
    assert!(t_start <= t_ready && t_ready <= t_progress && t_progress <= t_end);
    let total_ms = end.elapsed_since(&start)?; // aclrtEventElapsedTime
    let from_timestamps = (t_end - t_start).as_secs_f64() * 1e3;
    assert!(
        (f64::from(total_ms) - from_timestamps).abs() < 0.01,
        "elapsed {total_ms} ms, timestamps {from_timestamps} ms"
    );
    // At least the host function and the upload ran delayed on the producer.
    aclrt::sim_only! {
        assert!(
            f64::from(total_ms) >= 2.0 * delay.as_secs_f64() * 1e3 * 0.99,
            "two delayed producer tasks: {total_ms} ms"
        );
    }
    aclrt::not_sim! { let _ = delay; }
    println!(
        "producer step after {:.1} ms, upload after {:.1} ms, all done after {total_ms:.1} ms \
         (priorities {} and {}, range {}..={})",
        ready.elapsed_since(&start)?,
        progress.elapsed_since(&start)?,
        producer.priority()?.get(),
        consumer.priority()?.get(),
        range.greatest,
        range.least,
    );
    drop((start, ready, progress, end));
    drop((input, on_device, output));
    producer.destroy()?;
    consumer.destroy()?;
    ctx.destroy()?;
    device.reset()
}

/// The example between `Acl::init` and `finalize`, the producer slowed by
/// `delay` per task on the simulator. `tests/failure_rule/sweep.rs` runs it too
/// (with a shorter delay), with each of its C calls made to fail once.
pub fn flow_with_delay(acl: &Acl, delay: Duration) -> aclrt::Result<()> {
    match acl.detect() {
        Detected::Host(rt) => run(rt, delay),
        Detected::Device(rt) => run(rt, delay),
    }
}

/// The example between `Acl::init` and `finalize`.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    flow_with_delay(acl, Duration::from_millis(20))
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("16_event_flags: OK");
    Ok(())
}
