//! Safe calls for the remaining C functions, in both run modes, and attacks
//! on them: `Device::synchronize_timeout`, `Acl::soc_name`,
//! `Device::memory_info_of` (every `aclrtMemAttr`), `Context::is_current`,
//! `Context::copy_to_context`, `Context::copy_on_device` from
//! `aclrtMallocHost` memory in device run mode, `Stream::wait_event`
//! outside scopes (deferred destruction of the event), and the report
//! callbacks (`Reporter`, `Subscription`).

use crate::common;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aclrt::sim::{self, ResourceKind};
use aclrt::{
    Acl, Error, ErrorKind, HostMode, MemAttr, Reporter, RunMode, Runtime, make_guard, sys,
};
use common::*;

/// Runs the generic flow `$f` on a fresh simulator in host run mode and in
/// device run mode, then checks the audit is clean.
macro_rules! both_modes {
    ($f:ident) => {
        for config in [host_config(), device_config()] {
            let _sim = take(config);
            let acl = Acl::init().expect("aclInit");
            match acl.detect() {
                aclrt::Detected::Host(rt) => $f(rt),
                aclrt::Detected::Device(rt) => $f(rt),
            }
            .expect("the flow succeeds");
            acl.finalize().expect("aclFinalize");
            assert_clean();
        }
    };
}

fn with_runtime<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let mut buf = ctx.alloc::<u8>(1 << 16)?;
    // A slow stream: the device is busy for a while.
    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(300));
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.memset(&mut buf, 1)?;
        // The context's device work does not finish within 20 ms.
        let err = ctx
            .synchronize_timeout(Duration::from_millis(20))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
        Ok(())
    })?;
    sim::clear_faults();
    Ok(())
}

// ------------------------------------------------------------ small calls

#[test]
fn device_synchronize_timeout() {
    both_modes!(device_synchronize_timeout_flow);
}

fn device_synchronize_timeout_flow<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    // Idle: the timeout is only a hang guard.
    device.synchronize_timeout(HANG_GUARD)?;
    assert!(matches!(
        device.synchronize_timeout(Duration::ZERO),
        Err(Error::InvalidTimeout { millis: 0 })
    ));
    // Work on a stream of the default context makes it time out.
    make_guard!(g);
    let ctx = device.default_context(g);
    let stream = ctx.create_stream()?;
    let mut buf = ctx.alloc::<u8>(64)?;
    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(300));
    ctx.scope(|s| {
        make_guard!(l);
        let lane = s.lane(&stream, l);
        let _ = lane.memset(&mut buf, 3)?;
        let err = device
            .synchronize_timeout(Duration::from_millis(20))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
        // Made stream by stream (the failure rule).
        assert_eq!(err.function(), Some("aclrtSynchronizeStreamWithTimeout"));
        assert_eq!(err.code(), Some(sys::ACL_ERROR_RT_STREAM_SYNC_TIMEOUT));
        Ok(())
    })?;
    sim::clear_faults();
    device.synchronize_timeout(Duration::from_secs(5))?;
    Ok(())
}

#[test]
fn context_synchronize_timeout_in_both_modes() {
    for config in [host_config(), device_config()] {
        let _sim = take(config);
        let acl = Acl::init().unwrap();
        match acl.detect() {
            aclrt::Detected::Host(rt) => with_runtime(rt),
            aclrt::Detected::Device(rt) => with_runtime(rt),
        }
        .unwrap();
        acl.finalize().unwrap();
        assert_clean();
    }
}

#[test]
fn soc_name_is_a_result() {
    for config in [host_config(), device_config()] {
        let _sim = take(config);
        let acl = Acl::init().unwrap();
        assert!(!acl.soc_name().unwrap().is_empty());
        acl.finalize().unwrap();
        assert_clean();
    }
}

#[test]
fn memory_info_of_every_attr() {
    both_modes!(memory_info_of_every_attr_flow);
}

fn memory_info_of_every_attr_flow<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    let mut seen = Vec::new();
    for attr in MemAttr::ALL {
        let info = device.memory_info_of(attr)?;
        assert!(info.free <= info.total, "{attr:?}: {info:?}");
        seen.push(attr.to_raw());
    }
    // Every C value 0..=17, once, in order.
    assert_eq!(seen, (0..=17).collect::<Vec<_>>());
    assert_eq!(device.memory_info()?, device.memory_info_of(MemAttr::Hbm)?);
    // An allocation shows in the figures.
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let before = device.memory_info_of(MemAttr::Hbm)?.free;
    let buf = ctx.alloc::<u8>(1 << 20)?;
    let after = device.memory_info_of(MemAttr::Hbm)?.free;
    assert!(after < before, "{after} < {before}");
    drop(buf);
    Ok(())
}

#[test]
fn is_current_follows_the_runtime() {
    both_modes!(is_current_follows_the_runtime_flow);
}

fn is_current_follows_the_runtime_flow<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(a);
    make_guard!(b);
    let first = device.create_context(a)?;
    let second = device.create_context(b)?;
    assert!(second.is_current()? && !first.is_current()?);
    first.make_current()?;
    assert!(first.is_current()? && !second.is_current()?);
    // Safe calls on `second` make it current again.
    let _s = second.create_stream()?;
    assert!(second.is_current()?);
    // Another thread has its own current context.
    std::thread::scope(|t| {
        t.spawn(|| assert!(!first.is_current().unwrap() && !second.is_current().unwrap()));
    });
    Ok(())
}

#[test]
fn copy_to_context_on_one_device_and_refused_across_devices() {
    both_modes!(copy_to_context_on_one_device_and_refused_across_devices_flow);
}

fn copy_to_context_on_one_device_and_refused_across_devices_flow<M: RunMode>(
    rt: Runtime<'_, M>,
) -> aclrt::Result<()> {
    let d0 = rt.device(0)?;
    let d1 = rt.device(1)?;
    make_guard!(a);
    make_guard!(b);
    make_guard!(c);
    let producer = d0.create_context(a)?;
    let consumer = d0.create_context(b)?;
    let elsewhere = d1.create_context(c)?;
    let data = pattern_u32(1000, 7);
    let src = producer.alloc_from(&data)?;
    let mut dst = consumer.alloc::<u32>(1000)?;
    producer.copy_to_context(&consumer, &src, &mut dst)?;
    let mut back = vec![0u32; 1000];
    consumer.copy(&dst, &mut back)?;
    assert_eq!(back, data);
    // The other way round, into a view.
    let mut src2 = producer.alloc_zeroed::<u32>(1000)?;
    consumer.copy_to_context(
        &producer,
        &dst.view(0..500)?,
        &mut src2.view_mut(500..1000)?,
    )?;
    let mut back2 = vec![0u32; 1000];
    producer.copy(&src2, &mut back2)?;
    assert_eq!(&back2[500..], &data[..500]);
    assert!(back2[..500].iter().all(|&x| x == 0));
    // Another device: refused before the runtime sees it.
    let mut far = elsewhere.alloc::<u32>(1000)?;
    let err = producer
        .copy_to_context(&elsewhere, &src, &mut far)
        .unwrap_err();
    assert!(
        matches!(err, Error::PeerAccess { from: 0, to: 1, .. }),
        "{err}"
    );
    // Lengths are checked.
    let mut short = consumer.alloc::<u32>(10)?;
    assert!(matches!(
        producer.copy_to_context(&consumer, &src, &mut short),
        Err(Error::LengthMismatch { src: 1000, dst: 10 })
    ));
    Ok(())
}

#[test]
fn copy_on_device_from_pinned_memory_in_device_mode() {
    let _sim = take(device_config());
    let acl = Acl::init().unwrap();
    let device = acl
        .require::<aclrt::DeviceMode>()
        .unwrap()
        .device(0)
        .unwrap();
    make_guard!(g);
    let ctx = device.create_context(g).unwrap();
    let data = pattern_u8(4096, 3);
    let staged = ctx.alloc_host_from(&data).unwrap();
    let mut on_device = ctx.alloc::<u8>(4096).unwrap();
    ctx.copy_on_device(&staged, &mut on_device).unwrap();
    // And back into pinned memory, and through the deref'd `PinnedSlice`.
    let mut back = ctx.alloc_host_zeroed::<u8>(4096).unwrap();
    ctx.copy_on_device(&on_device, &mut back).unwrap();
    assert_eq!(back.to_vec(), data);
    let mut again = ctx.alloc_host_zeroed::<u8>(4096).unwrap();
    ctx.copy_on_device(&*back, &mut *again).unwrap();
    assert_eq!(again.to_vec(), data);
    // Between two contexts of the device, pinned memory too.
    make_guard!(g2);
    let other = device.create_context(g2).unwrap();
    let mut theirs = other.alloc_host_zeroed::<u8>(4096).unwrap();
    ctx.copy_to_context(&other, &again, &mut theirs).unwrap();
    assert_eq!(theirs.to_vec(), data);
    drop(theirs);
    drop(other);
    let calls = sim::call_counts();
    assert!(calls.iter().any(|(f, n)| *f == "aclrtMemcpy" && *n >= 3));
    drop(staged);
    drop(on_device);
    drop(back);
    drop(again);
    drop(ctx);
    drop(device);
    acl.finalize().unwrap();
    assert_clean();
}

// ------------------------------------------------------------ wait_event

#[test]
fn wait_event_orders_streams() {
    both_modes!(wait_event_orders_streams_flow);
}

fn wait_event_orders_streams_flow<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let producer = ctx.create_stream()?;
    let consumer = ctx.create_stream()?;
    let mut shared = ctx.alloc_zeroed::<u8>(4096)?;
    let mut out = ctx.alloc_host_zeroed::<u8>(4096)?;
    sim::set_stream_delay(producer.as_raw(), Duration::from_millis(100));
    // The producer's memset is slow; the consumer waits for it through
    // an event recorded after it, then copies the result out.
    ctx.scope(|s| {
        make_guard!(p);
        let lane = s.lane(&producer, p);
        let _ = lane.memset(&mut shared, 9)?;
        Ok(())
    })?;
    let ready = producer.record(ctx.create_event()?)?;
    consumer.wait_event(&ready)?;
    ctx.copy(&shared, &mut out)?;
    consumer.synchronize()?;
    assert!(out.to_vec().iter().all(|&b| b == 9));
    drop(ready);
    sim::clear_faults();
    Ok(())
}

#[test]
fn dropping_an_event_under_a_pending_wait_is_deferred() {
    both_modes!(dropping_an_event_under_a_pending_wait_is_deferred_flow);
}

fn dropping_an_event_under_a_pending_wait_is_deferred_flow<M: RunMode>(
    rt: Runtime<'_, M>,
) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let producer = ctx.create_stream()?;
    let consumer = ctx.create_stream()?;
    // The consumer is slow, so its wait task is still queued when the
    // event is dropped.
    sim::set_stream_delay(consumer.as_raw(), Duration::from_millis(150));
    let ready = producer.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
    consumer.wait_event(&ready)?;
    drop(ready); // would be a ReleaseWhileInUse violation (507006) if destroyed now
    assert_eq!(
        live(&sim::audit(), ResourceKind::Event),
        1,
        "deferred, still alive"
    );
    consumer.synchronize()?;
    assert_eq!(
        live(&sim::audit(), ResourceKind::Event),
        0,
        "destroyed by the sync"
    );
    assert!(
        sim::audit().violations.is_empty(),
        "{:?}",
        sim::audit().violations
    );
    sim::clear_faults();
    Ok(())
}

#[test]
fn deferred_events_go_with_their_context_and_streams() {
    both_modes!(deferred_events_go_with_their_context_and_streams_flow);
}

fn deferred_events_go_with_their_context_and_streams_flow<M: RunMode>(
    rt: Runtime<'_, M>,
) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    // (a) destroying the waiting stream retires its waits.
    {
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let a = ctx.create_stream()?;
        let b = ctx.create_stream()?;
        sim::set_stream_delay(b.as_raw(), Duration::from_millis(50));
        let ev = a.record(ctx.create_event()?)?;
        b.wait_event(&ev)?;
        ev.destroy()?; // deferred: Ok, not destroyed yet
        assert_eq!(live(&sim::audit(), ResourceKind::Event), 1);
        b.destroy()?;
        assert_eq!(live(&sim::audit(), ResourceKind::Event), 0);
        drop(a);
        ctx.destroy()?;
    }
    // (b) waits on the default stream: the context's destruction
    // synchronises it and destroys the event first.
    {
        make_guard!(g);
        let ctx = device.create_context(g)?;
        let a = ctx.create_stream()?;
        let ev = a.record(ctx.create_event()?)?;
        let default = ctx.default_stream()?;
        default.wait_event(&ev)?;
        drop(ev);
        drop(a);
        ctx.destroy()?;
        assert_eq!(live(&sim::audit(), ResourceKind::Event), 0);
    }
    // (c) the same on the device's default context, never synchronised:
    // releasing the `Device` (end of the flow) flushes it before the reset.
    {
        make_guard!(g);
        let ctx = device.default_context(g);
        let a = ctx.create_stream()?;
        let ev = a.record(ctx.create_event()?)?;
        ctx.default_stream()?.wait_event(&ev)?;
        drop(ev);
        drop(a);
    }
    sim::clear_faults();
    Ok(())
}

#[test]
fn wait_event_from_many_threads() {
    both_modes!(wait_event_from_many_threads_flow);
}

fn wait_event_from_many_threads_flow<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let src = ctx.create_stream()?;
    let ev = src.record(ctx.create_event()?)?;
    std::thread::scope(|t| {
        for _ in 0..4 {
            t.spawn(|| -> aclrt::Result<()> {
                let s = ctx.create_stream()?;
                for _ in 0..10 {
                    s.wait_event(&ev)?;
                }
                s.synchronize()
            });
        }
    });
    drop(ev);
    assert_eq!(live(&sim::audit(), ResourceKind::Event), 0);
    Ok(())
}

// ------------------------------------------------------------ report callbacks

#[test]
fn callbacks_run_on_the_reporter_thread() {
    both_modes!(callbacks_run_on_the_reporter_thread_flow);
}

fn callbacks_run_on_the_reporter_thread_flow<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let (tx, rx) = mpsc::channel::<(String, u32)>();
    {
        let sub = reporter.subscribe(&stream)?;
        for i in 0..5 {
            let tx = tx.clone();
            let run = move || {
                let name = std::thread::current().name().unwrap_or("").to_owned();
                tx.send((name, i)).unwrap();
            };
            if i % 2 == 0 {
                sub.launch_blocking(run)?;
            } else {
                sub.launch(run)?;
            }
        }
        stream.synchronize()?;
        // The last one is blocking, so all five have run, in order.
        let got: Vec<_> = (0..5)
            .map(|_| rx.recv_timeout(Duration::from_secs(5)).unwrap())
            .collect();
        assert!(got.iter().all(|(n, _)| n == "aclrt-reporter"), "{got:?}");
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    }
    reporter.stop()?;
    Ok(())
}

#[test]
fn blocking_callback_holds_the_stream() {
    both_modes!(blocking_callback_holds_the_stream_flow);
}

fn blocking_callback_holds_the_stream_flow<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let sub = reporter.subscribe(&stream)?;
    let gate = Arc::new(Mutex::new(()));
    let held = gate.lock().unwrap();
    let g2 = Arc::clone(&gate);
    sub.launch_blocking(move || drop(g2.lock().unwrap()))?;
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        !stream.is_complete()?,
        "the BLOCK callback holds the stream"
    );
    drop(held);
    stream.synchronize()?;
    assert!(stream.is_complete()?);
    sub.unsubscribe()?;
    reporter.stop()?;
    Ok(())
}

#[test]
fn panic_in_a_callback_is_resumed_by_stop() {
    let _sim = take(host_config());
    let acl = Acl::init().unwrap();
    let device = acl.require::<HostMode>().unwrap().device(0).unwrap();
    make_guard!(g);
    let ctx = device.create_context(g).unwrap();
    let stream = ctx.create_stream().unwrap();
    let reporter = Reporter::spawn().unwrap();
    let ran_after = Arc::new(AtomicU32::new(0));
    {
        let sub = reporter.subscribe(&stream).unwrap();
        sub.launch_blocking(|| panic!("callback exploded")).unwrap();
        let r = Arc::clone(&ran_after);
        sub.launch_blocking(move || {
            r.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
        stream.synchronize().unwrap();
    }
    // The reporter thread survived the panic and ran the next callback.
    assert_eq!(ran_after.load(Ordering::SeqCst), 1);
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reporter.stop()))
        .expect_err("stop resumes the callback's panic");
    assert_eq!(panic_message(&*payload), "callback exploded");
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize().unwrap();
    // The panic never reached the runtime: no CallbackPanicked violation.
    assert_clean();
}

/// A panic in the `Drop` of a callback's capture (the callback itself
/// returns) propagates once too: `Reporter::stop` resumes it.
#[test]
fn panic_in_the_drop_of_a_callbacks_capture_is_resumed_by_stop() {
    struct Bomb;
    impl Drop for Bomb {
        fn drop(&mut self) {
            panic!("capture exploded");
        }
    }
    let _sim = take(host_config());
    let acl = Acl::init().unwrap();
    let device = acl.require::<HostMode>().unwrap().device(0).unwrap();
    make_guard!(g);
    let ctx = device.create_context(g).unwrap();
    let stream = ctx.create_stream().unwrap();
    let reporter = Reporter::spawn().unwrap();
    {
        let sub = reporter.subscribe(&stream).unwrap();
        let bomb = Bomb;
        sub.launch_blocking(move || {
            let _keep = &bomb;
        })
        .unwrap();
        stream.synchronize().unwrap();
    }
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reporter.stop()))
        .expect_err("stop resumes the capture's panic");
    assert_eq!(panic_message(&*payload), "capture exploded");
    drop(stream);
    drop(ctx);
    drop(device);
    acl.finalize().unwrap();
    assert_clean();
}

#[test]
fn leaked_subscription_is_undone_when_the_reporter_stops() {
    both_modes!(leaked_subscription_is_undone_when_the_reporter_stops_flow);
}

fn leaked_subscription_is_undone_when_the_reporter_stops_flow<M: RunMode>(
    rt: Runtime<'_, M>,
) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let ran = Arc::new(AtomicU32::new(0));
    let sub = reporter.subscribe(&stream)?;
    // Slow stream: the callbacks are still queued when the reporter stops.
    sim::set_stream_delay(stream.as_raw(), Duration::from_millis(30));
    for _ in 0..3 {
        let r = Arc::clone(&ran);
        sub.launch_blocking(move || {
            r.fetch_add(1, Ordering::SeqCst);
        })?;
    }
    std::mem::forget(sub);
    reporter.stop()?;
    // The stream is not left waiting for a thread that no longer reports.
    stream.synchronize_timeout(Duration::from_secs(5))?;
    assert_eq!(ran.load(Ordering::SeqCst), 3);
    sim::clear_faults();
    Ok(())
}

#[test]
fn leaked_subscription_is_undone_when_the_stream_is_destroyed() {
    both_modes!(leaked_subscription_is_undone_when_the_stream_is_destroyed_flow);
}

fn leaked_subscription_is_undone_when_the_stream_is_destroyed_flow<M: RunMode>(
    rt: Runtime<'_, M>,
) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let reporter = Reporter::spawn()?;
    let ran = Arc::new(AtomicU32::new(0));
    {
        let stream = ctx.create_stream()?;
        let sub = reporter.subscribe(&stream)?;
        let r = Arc::clone(&ran);
        sub.launch(move || {
            r.fetch_add(1, Ordering::SeqCst);
        })?;
        std::mem::forget(sub);
        stream.destroy()?;
    }
    // A new stream can be subscribed to the same reporter.
    let stream = ctx.create_stream()?;
    let sub = reporter.subscribe(&stream)?;
    let r = Arc::clone(&ran);
    sub.launch_blocking(move || {
        r.fetch_add(1, Ordering::SeqCst);
    })?;
    stream.synchronize()?;
    drop(sub);
    reporter.stop()?;
    assert_eq!(ran.load(Ordering::SeqCst), 2);
    Ok(())
}

#[test]
fn unsubscribe_with_callbacks_pending_runs_them() {
    both_modes!(unsubscribe_with_callbacks_pending_runs_them_flow);
}

fn unsubscribe_with_callbacks_pending_runs_them_flow<M: RunMode>(
    rt: Runtime<'_, M>,
) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    let ran = Arc::new(AtomicU32::new(0));
    let sub = reporter.subscribe(&stream)?;
    for _ in 0..10 {
        let r = Arc::clone(&ran);
        sub.launch(move || {
            std::thread::sleep(Duration::from_millis(2));
            r.fetch_add(1, Ordering::SeqCst);
        })?;
    }
    sub.unsubscribe()?;
    stream.synchronize()?;
    // Each ran exactly once: on the reporter, on the unsubscribing
    // thread, or on the stream's worker after the subscription ended.
    // Bounded only by the hang guard: some may still be running.
    wait_until(|| ran.load(Ordering::SeqCst) >= 10);
    assert_eq!(ran.load(Ordering::SeqCst), 10);
    reporter.stop()?;
    Ok(())
}

#[test]
fn reporter_dropped_inside_its_own_callback_does_not_deadlock() {
    both_modes!(reporter_dropped_inside_its_own_callback_does_not_deadlock_flow);
}

fn reporter_dropped_inside_its_own_callback_does_not_deadlock_flow<M: RunMode>(
    rt: Runtime<'_, M>,
) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let reporter = Arc::new(Reporter::spawn()?);
    let (tx, rx) = mpsc::channel::<bool>();
    {
        let sub = reporter.subscribe(&stream)?;
        let slot: Arc<Mutex<Option<Arc<Reporter>>>> =
            Arc::new(Mutex::new(Some(Arc::clone(&reporter))));
        let slot2 = Arc::clone(&slot);
        sub.launch_blocking(move || {
            let on_reporter = std::thread::current().name() == Some("aclrt-reporter");
            // Take the handle out; the test drops its own below, so this
            // may be the last one, dropped on the reporter's own thread.
            let r = slot2.lock().unwrap().take();
            tx.send(on_reporter).unwrap();
            std::thread::sleep(Duration::from_millis(20));
            drop(r);
        })?;
        stream.synchronize()?;
        assert!(rx.recv_timeout(Duration::from_secs(5)).unwrap());
        drop(sub);
    }
    drop(reporter); // may or may not be the last handle: both must work
    stream.synchronize_timeout(Duration::from_secs(5))?;
    Ok(())
}

#[test]
fn report_errors_of_the_runtime() {
    both_modes!(report_errors_of_the_runtime_flow);
}

fn report_errors_of_the_runtime_flow<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let d0 = rt.device(0)?;
    let d1 = rt.device(1)?;
    make_guard!(a);
    make_guard!(b);
    let c0 = d0.create_context(a)?;
    let c1 = d1.create_context(b)?;
    let s0 = c0.create_stream()?;
    let s1 = c1.create_stream()?;
    let r1 = Reporter::spawn()?;
    let r2 = Reporter::spawn()?;
    assert_ne!(r1.thread_id(), r2.thread_id());
    let sub = r1.subscribe(&s0)?;
    // A stream has one reporter.
    let err = r2.subscribe(&s0).unwrap_err();
    assert_eq!(
        err.code(),
        Some(sys::ACL_ERROR_RT_STREAM_SUBSCRIBE),
        "{err}"
    );
    assert_eq!(err.function(), Some("aclrtSubscribeReport"));
    // A reporter serves one device.
    let err = r1.subscribe(&s1).unwrap_err();
    assert_eq!(
        err.code(),
        Some(sys::ACL_ERROR_RT_THREAD_SUBSCRIBE),
        "{err}"
    );
    // Launching from another thread through a shared subscription.
    let ran = Arc::new(AtomicU32::new(0));
    std::thread::scope(|t| {
        for _ in 0..3 {
            let ran = Arc::clone(&ran);
            let sub = &sub;
            t.spawn(move || {
                sub.launch_blocking(move || {
                    ran.fetch_add(1, Ordering::SeqCst);
                })
                .unwrap()
            });
        }
    });
    s0.synchronize()?;
    assert_eq!(ran.load(Ordering::SeqCst), 3);
    drop(sub);
    r1.stop()?;
    r2.stop()?;
    Ok(())
}

// ------------------------------------------------------------ concepts table

/// Every function our header declares has a row in the guide's table
/// "Every function of the header" (a safe counterpart, or why none), and
/// every row names a declared function.
#[test]
fn concepts_table_lists_every_header_function() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut declared = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(format!("{root}/sys/include/acl")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "h") {
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text.lines() {
                let Some(rest) = line.strip_prefix("ACL_FUNC_VISIBILITY") else {
                    continue;
                };
                let name = rest.split('(').next().unwrap().trim_end();
                let name = name
                    .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .next()
                    .unwrap();
                declared.insert(name.to_owned());
            }
        }
    }
    assert!(
        declared.len() > 80,
        "parsed {} declarations",
        declared.len()
    );
    let guide = std::fs::read_to_string(format!("{root}/src/guide/concepts.md")).unwrap();
    let section = guide
        .split("## Every function of the header")
        .nth(1)
        .expect("the section exists")
        .split("\n## ")
        .next()
        .unwrap();
    let listed: std::collections::BTreeSet<String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .map(|l| l.split('`').next().unwrap().to_owned())
        .collect();
    let missing: Vec<_> = declared.difference(&listed).collect();
    let unknown: Vec<_> = listed.difference(&declared).collect();
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "declared but not in the table: {missing:?}; in the table but not declared: {unknown:?}"
    );
}

/// Waits issued, events dropped and the waiting stream synchronised from
/// several threads at once: no event is ever destroyed under a pending wait
/// (the simulator records that as a violation), and none is left behind.
#[test]
fn wait_event_races_with_synchronize() {
    both_modes!(wait_event_races_flow);
}

fn wait_event_races_flow<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let consumer = ctx.create_stream()?;
    sim::set_stream_delay(consumer.as_raw(), Duration::from_millis(1));
    let stop = std::sync::atomic::AtomicBool::new(false);
    std::thread::scope(|t| -> aclrt::Result<()> {
        let syncer = t.spawn(|| -> aclrt::Result<()> {
            while !stop.load(Ordering::Acquire) {
                consumer.synchronize()?;
            }
            Ok(())
        });
        let producers: Vec<_> = (0..3)
            .map(|_| {
                t.spawn(|| -> aclrt::Result<()> {
                    let producer = ctx.create_stream()?;
                    for _ in 0..40 {
                        // Pending work, so the record (and the wait on it)
                        // is still pending when the event is dropped.
                        producer.launch_host_fn(|| std::thread::sleep(Duration::from_millis(1)))?;
                        let ev = producer.record(ctx.create_event_of::<aclrt::SyncOnly>()?)?;
                        consumer.wait_event(&ev)?;
                        drop(ev);
                    }
                    producer.synchronize()
                })
            })
            .collect();
        for p in producers {
            p.join().unwrap()?;
        }
        stop.store(true, Ordering::Release);
        syncer.join().unwrap()
    })?;
    consumer.synchronize()?;
    let audit = sim::audit();
    assert!(audit.violations.is_empty(), "{:?}", audit.violations);
    assert_eq!(live(&audit, ResourceKind::Event), 0);
    sim::clear_faults();
    Ok(())
}

// ------------------------------------------------------------ the service example under faults

#[allow(dead_code)]
#[path = "../../examples/17_service.rs"]
mod ex17;

/// `examples/17_service.rs` with one C call failing: the service returns
/// that error (no panic, no hang: the workers finish, the reporter stops),
/// and the simulator saw no rule broken. Not part of the fault sweep
/// (`failure_rule/sweep.rs`): the reporter thread's `aclrtProcessReport`
/// polling and the worker threads make the order of calls differ from run
/// to run.
#[test]
fn service_example_under_faults() {
    let cases: &[(&str, u64)] = &[
        ("aclrtCreateStream", 2),
        ("aclrtSubscribeReport", 1),
        ("aclrtSubscribeReport", 3),
        ("aclrtMallocHost", 4),
        ("aclrtMemcpyAsync", 10),
        ("aclrtSynchronizeStream", 7),
        ("aclrtLaunchCallback", 5),
        ("aclrtUnSubscribeReport", 2),
    ];
    for config in [host_config(), device_config()] {
        for &(function, nth) in cases {
            let _sim = take(config.clone());
            sim::inject_fault(function, nth, sys::ACL_ERROR_RT_INTERNAL_ERROR);
            let outcome = std::panic::catch_unwind(|| {
                let acl = Acl::init()?;
                let r = ex17::flow(&acl);
                acl.finalize()?;
                r
            });
            let result =
                outcome.unwrap_or_else(|_| panic!("{function} #{nth}: the service panicked"));
            let err = result.expect_err(function);
            assert_eq!(err.function(), Some(function), "{function} #{nth}: {err}");
            let audit = sim::audit();
            assert!(
                audit.violations.is_empty(),
                "{function} #{nth}: {:?}",
                audit.violations
            );
            sim::clear_faults();
        }
    }
}

#[test]
fn host_functions_are_refused_on_a_subscribed_stream() {
    both_modes!(callback_mix_flow);
}

fn callback_mix_flow<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    let reporter = Reporter::spawn()?;
    {
        let sub = reporter.subscribe(&stream)?;
        assert!(matches!(
            stream.launch_host_fn(|| {}),
            Err(Error::CallbackMix {
                operation: "aclrtLaunchHostFunc"
            })
        ));
        let r = ctx.scope(|s| {
            make_guard!(l);
            let lane = s.lane(&stream, l);
            lane.host_fn(|| {})
        });
        assert!(matches!(r, Err(Error::CallbackMix { .. })), "{r:?}");
        sub.launch_blocking(|| {})?;
        stream.synchronize()?;
    }
    // Unsubscribed: host functions are fine again.
    stream.launch_host_fn(|| {})?;
    // ... but from now on the stream belongs to the host-function
    // mechanism (as on hardware, 107011): subscribing is refused, even
    // after the host functions have settled.
    for _ in 0..2 {
        assert!(matches!(
            reporter.subscribe(&stream),
            Err(Error::CallbackMix {
                operation: "aclrtSubscribeReport"
            })
        ));
        stream.synchronize()?;
    }
    // A fresh stream may be subscribed.
    let other = ctx.create_stream()?;
    drop(reporter.subscribe(&other)?);
    // The default stream follows the same rule.
    let ds = ctx.default_stream()?;
    ds.launch_host_fn(|| {})?;
    ds.synchronize()?;
    assert!(matches!(
        reporter.subscribe(&ds),
        Err(Error::CallbackMix {
            operation: "aclrtSubscribeReport"
        })
    ));
    reporter.stop()?;
    Ok(())
}

/// The base types of `acl/acl_base.h`: `Float16` values (the runtime's
/// conversions) travel through device memory unchanged, `DataType::size`
/// is the runtime's, and `app_log!` writes a record with the caller's
/// location at the default level (error) and nothing below it.
#[test]
fn base_types_and_logging() {
    both_modes!(base_types_and_logging_flow);
}

fn base_types_and_logging_flow<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    use aclrt::{DataType, Float16, LogLevel};
    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let halves: Vec<Float16> = (0..1024)
        .map(|i| Float16::from_f32(i as f32 * 0.25))
        .collect();
    let buf = ctx.alloc_from(&halves)?;
    let mut back = vec![Float16::default(); halves.len()];
    ctx.copy(&buf, &mut back)?;
    assert!(
        back.iter()
            .enumerate()
            .all(|(i, h)| h.to_f32() == i as f32 * 0.25)
    );
    assert_eq!(Float16::from_f32(1e9).to_bits(), 0x7bff);
    assert_eq!(f32::from(Float16::from_bits(0x7c00)), 65536.0);
    assert_eq!(DataType::Float16.size(), core::mem::size_of::<Float16>());
    let sizes: Vec<usize> = DataType::ALL.iter().map(|t| t.size()).collect();
    assert_eq!(&sizes[..4], &[4, 2, 1, 4]);
    assert_eq!(DataType::String.size(), 0);
    assert_eq!(DataType::Float4E2M1.size(), 8);
    assert!(
        DataType::ALL
            .iter()
            .all(|t| DataType::from_raw(t.to_raw()) == Some(*t))
    );
    assert_eq!(DataType::from_raw(-1), None);
    static RUN: AtomicU32 = AtomicU32::new(0);
    let tag = format!("calls-run-{}", RUN.fetch_add(1, Ordering::Relaxed));
    aclrt::app_log!(LogLevel::Error, "{tag} failed with {}", 7);
    aclrt::app_log!(LogLevel::Info, "{tag} below the level");
    let mine: Vec<String> = sim::app_log_records()
        .into_iter()
        .filter(|r| r.contains(&tag))
        .collect();
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert!(
        mine[0].starts_with("[ERROR] ")
            && mine[0].contains(" lock_discipline::calls:tests/lock_discipline/calls.rs:")
            && mine[0].ends_with(&format!("\"{tag} failed with 7\"")),
        "{}",
        mine[0]
    );
    Ok(())
}
