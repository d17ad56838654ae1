//! Awaitable completions (`aclrt::future`): every wait's future form gives
//! what the blocking form gives, wakes its task once per completion, never
//! blocks an executor thread, and dropping or forgetting it only gives up
//! interest. The device actor (`aclrt::actor`) is tested here too.

use crate::common;

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context as TaskContext, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use aclrt::future::block_on;
use aclrt::{ErrorKind, Result, sim, sys};
use common::*;

/// A waker that counts its wake-ups.
struct Count(AtomicUsize);

impl Wake for Count {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn counting() -> (Arc<Count>, Waker) {
    let c = Arc::new(Count(AtomicUsize::new(0)));
    (c.clone(), Waker::from(c))
}

/// A host function that holds its lane for `ms` (the work "runs long").
fn hold(ms: u64) -> impl FnOnce() + Send + 'static {
    move || std::thread::sleep(Duration::from_millis(ms))
}

/// Awaited waits give the buffer back with its contents, in one scope
/// with two lanes and two batches collected with `join!`.
#[test]
fn awaited_waits_give_buffers_back_two_lanes_joined() -> Result<()> {
    in_host_context(|ctx| {
        let a = ctx.create_stream()?;
        let b = ctx.create_stream()?;
        let src_a = ctx.alloc_host_from(&pattern_u32(1024, 7))?;
        let src_b = ctx.alloc_host_from(&pattern_u32(1024, 9))?;
        let mut d_a = ctx.alloc::<u32>(1024)?;
        let mut d_b = ctx.alloc::<u32>(1024)?;
        let mut out_a = ctx.alloc_host_zeroed::<u32>(1024)?;
        let mut out_b = ctx.alloc_host_zeroed::<u32>(1024)?;
        ctx.scope(|s| {
            aclrt::make_guard!(ga);
            aclrt::make_guard!(gb);
            let la = s.lane(&a, ga);
            let lb = s.lane(&b, gb);
            block_on(async {
                la.host_fn(hold(5))?;
                let da = la.copy(&src_a, &mut d_a)?;
                let oa = la.copy(&da, &mut out_a)?;
                let db = lb.copy(&src_b, &mut d_b)?;
                let ob = lb.copy(&db, &mut out_b)?.fence()?;
                let (ra, rb) = join(oa.wait_async(), ob.wait_async()).await;
                let (ra, rb) = (ra?, rb?);
                assert_eq!(&ra[..], &pattern_u32(1024, 7)[..]);
                assert_eq!(&rb[..], &pattern_u32(1024, 9)[..]);
                la.synchronize_async().await?;
                Ok(())
            })
        })?;
        a.destroy()?;
        b.destroy()?;
        Ok(())
    })
}

/// One completion wakes the task once; polls before it make no runtime
/// call (the simulator's call counts do not move); the poll after it
/// makes the blocking form's checked wait.
#[test]
fn woken_once_and_pending_polls_make_no_runtime_call() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&pattern_u8(4096, 3))?;
        let mut dst = ctx.alloc::<u8>(4096)?;
        let mut back = ctx.alloc_host_zeroed::<u8>(4096)?;
        ctx.scope(|s| {
            aclrt::make_guard!(g);
            let lane = s.lane(&stream, g);
            let gate = HeldGate::new();
            lane.host_fn(gate.body())?;
            let d = lane.copy(&src, &mut dst)?;
            let out = lane.copy(&d, &mut back)?;
            let (count, waker) = counting();
            let mut cx = TaskContext::from_waker(&waker);
            let mut fut = pin!(out.wait_async());
            // The early phase (20 µs): each poll asks to be polled again.
            assert!(fut.as_mut().poll(&mut cx).is_pending());
            assert_eq!(
                count.0.load(Ordering::SeqCst),
                1,
                "the early phase polls again"
            );
            std::thread::sleep(Duration::from_millis(1));
            // Past it: this poll hands the watch to the completion service.
            assert!(fut.as_mut().poll(&mut cx).is_pending());
            let base = count.0.load(Ordering::SeqCst);
            // The completion service queries the stream meanwhile (a
            // round per 20 µs to 1 ms, from its own thread); the polls add
            // no call: not one per poll, and nothing but queries.
            let (queries, others) = calls_now();
            for _ in 0..2000 {
                assert!(fut.as_mut().poll(&mut cx).is_pending());
            }
            let (q, o) = calls_now();
            assert_eq!(o, others, "pending polls made runtime calls");
            assert!(
                q - queries < 200,
                "{} stream queries during 2000 polls",
                q - queries
            );
            assert_eq!(count.0.load(Ordering::SeqCst), base);
            gate.open();
            assert!(wait_until(|| count.0.load(Ordering::SeqCst) == base + 1));
            let Poll::Ready(back) = fut.as_mut().poll(&mut cx) else {
                panic!("woken but not ready");
            };
            assert_eq!(&back?[..], &pattern_u8(4096, 3)[..]);
            std::thread::sleep(Duration::from_millis(5));
            assert_eq!(
                count.0.load(Ordering::SeqCst),
                base + 1,
                "woken more than once"
            );
            Ok(())
        })?;
        stream.destroy()?;
        Ok(())
    })
}

/// The simulator's calls so far: stream queries (and the context binds of
/// the thread that makes them), and all others.
fn calls_now() -> (u64, u64) {
    sim::call_counts()
        .into_iter()
        .fold((0, 0), |(q, o), (f, n)| match f {
            "aclrtStreamQuery" => (q + n, o),
            "aclrtSetCurrentContext" | "aclrtGetCurrentContext" => (q, o),
            _ => (q, o + n),
        })
}

/// A device fault: the awaited checked wait fails exactly as the blocking
/// one does (same kind, same function), and gives the buffer back in flight.
#[test]
fn awaited_wait_reports_the_fault_the_blocking_wait_reports() -> Result<()> {
    fn run(awaited: bool) -> Result<(ErrorKind, Option<&'static str>)> {
        let mut seen = None;
        in_host_context(|ctx| {
            let stream = ctx.create_stream()?;
            let src = ctx.alloc_host_from(&pattern_u32(256, 1))?;
            let mut d = ctx.alloc::<u32>(256)?;
            let r = ctx.scope(|s| {
                aclrt::make_guard!(g);
                let lane = s.lane(&stream, g);
                sim::inject_stream_task_fault(
                    stream.as_raw(),
                    1,
                    sys::ACL_ERROR_RT_AICORE_EXCEPTION,
                );
                let fl = lane.copy(&src, &mut d)?;
                let failed = if awaited {
                    block_on(fl.wait_async()).expect_err("a faulted copy waited Ok")
                } else {
                    fl.wait_or_keep().expect_err("a faulted copy waited Ok")
                };
                seen = Some((failed.error().kind(), failed.error().function()));
                // The buffer came back in flight: reused, the scope goes on.
                let (_, fl) = failed.into_parts();
                fl.reuse()?;
                Ok(())
            });
            // The scope reports the fault too, or ends Ok; both the same way.
            let _ = r;
            stream.destroy()?;
            Ok(())
        })?;
        Ok(seen.expect("the scope ran"))
    }
    let blocking = run(false)?;
    let awaited = run(true)?;
    assert_eq!(blocking.0, ErrorKind::DeviceFault);
    assert_eq!(awaited, blocking);
    Ok(())
}

/// Dropping a pending future, and forgetting one, give up interest only:
/// the waker is never called after the drop, the scope ends Ok, and the
/// buffer the forgotten one held was written when the scope returned.
#[test]
fn dropped_and_forgotten_futures_only_give_up_interest() -> Result<()> {
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&pattern_u32(512, 5))?;
        let mut d1 = ctx.alloc::<u32>(512)?;
        let mut d2 = ctx.alloc::<u32>(512)?;
        let mut one = ctx.alloc_host_zeroed::<u32>(512)?;
        let mut two = ctx.alloc_host_zeroed::<u32>(512)?;
        let (count, waker) = counting();
        let (forgot, forgot_waker) = counting();
        let (at_drop, at_forget) = ctx.scope(|s| {
            aclrt::make_guard!(g);
            let lane = s.lane(&stream, g);
            let gate = HeldGate::new();
            lane.host_fn(gate.body())?;
            let x = lane.copy(&src, &mut d1)?;
            let y = lane.copy(&src, &mut d2)?;
            let a = lane.copy(&x, &mut one)?;
            let b = lane.copy(&y, &mut two)?.fence()?;
            // Each polled past its early phase: their watches are with the
            // completion service.
            let mut fa = Box::pin(a.wait_async());
            let mut ca = TaskContext::from_waker(&waker);
            let mut fb = Box::pin(b.reuse_async());
            let mut cb = TaskContext::from_waker(&forgot_waker);
            assert!(fa.as_mut().poll(&mut ca).is_pending());
            assert!(fb.as_mut().poll(&mut cb).is_pending());
            std::thread::sleep(Duration::from_millis(1));
            assert!(fa.as_mut().poll(&mut ca).is_pending());
            assert!(fb.as_mut().poll(&mut cb).is_pending());
            drop(fa);
            let at_drop = count.0.load(Ordering::SeqCst);
            let at_forget = forgot.0.load(Ordering::SeqCst);
            core::mem::forget(fb);
            gate.open();
            lane.synchronize()?;
            Ok((at_drop, at_forget))
        })?;
        // The forgotten one may have been woken while the body ran (its
        // interest was not given up), at most once; never after.
        let at_end = forgot.0.load(Ordering::SeqCst);
        assert!(at_end <= at_forget + 1);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(
            count.0.load(Ordering::SeqCst),
            at_drop,
            "a dropped future was woken"
        );
        assert_eq!(
            forgot.0.load(Ordering::SeqCst),
            at_end,
            "woken after its scope"
        );
        assert_eq!(one.as_slice(), &pattern_u32(512, 5)[..]);
        assert_eq!(two.as_slice(), &pattern_u32(512, 5)[..]);
        stream.destroy()?;
        Ok(())
    })
}

/// No executor thread is blocked by the crate: on a current-thread tokio
/// runtime, a timer beside an awaited wait for long work keeps firing.
#[test]
fn awaited_wait_lets_a_timer_fire_on_a_current_thread_runtime() -> Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime");
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&pattern_u32(64, 2))?;
        let mut dst = ctx.alloc::<u32>(64)?;
        let mut back = ctx.alloc_host_zeroed::<u32>(64)?;
        let event = ctx.create_event()?;
        let ticks = ctx.scope(|s| {
            aclrt::make_guard!(g);
            let lane = s.lane(&stream, g);
            rt.block_on(async {
                lane.host_fn(hold(60))?;
                let d = lane.copy(&src, &mut dst)?;
                let out = lane.copy(&d, &mut back)?;
                let t0 = Instant::now();
                let counted = std::cell::Cell::new(0u32);
                // The wait, with a timer ticking beside it (a `select!`).
                let back = first(out.wait_async(), ticker_loop(&counted)).await;
                assert_eq!(&back?[..], &pattern_u32(64, 2)[..]);
                assert!(t0.elapsed() >= Duration::from_millis(50));
                Ok::<_, aclrt::Error>(counted.get())
            })
        })?;
        assert!(
            ticks >= 3,
            "the timer fired {ticks} times during a 60 ms wait"
        );
        // Stream and event futures, outside scopes, the same way.
        stream.launch_host_fn(hold(20))?;
        let recorded = stream.record(event)?;
        let n = rt.block_on(async {
            let counted = std::cell::Cell::new(0u32);
            first(recorded.synchronize_async(), ticker_loop(&counted)).await?;
            stream.synchronize_async().await?;
            Ok::<_, aclrt::Error>(counted.get())
        })?;
        assert!(
            n >= 1,
            "the timer fired {n} times during a 20 ms event wait"
        );
        drop(recorded);
        stream.destroy()?;
        Ok(())
    })
}

/// `join!` of two futures (no executor's macro needed).
async fn join<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (pin!(a), pin!(b));
    let (mut ra, mut rb) = (None, None);
    std::future::poll_fn(|cx| {
        if ra.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        if ra.is_some() && rb.is_some() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    (ra.expect("ready"), rb.expect("ready"))
}

/// `select!` of `a` against a future that never ends (`b`, a ticker):
/// `a`'s output, `b` polled beside it meanwhile.
async fn first<A: Future>(a: A, b: impl Future<Output = ()>) -> A::Output {
    let (mut a, mut b) = (pin!(a), pin!(b));
    std::future::poll_fn(|cx| {
        if let Poll::Ready(v) = a.as_mut().poll(cx) {
            return Poll::Ready(v);
        }
        let _ = b.as_mut().poll(cx);
        Poll::Pending
    })
    .await
}

async fn ticker_loop(counted: &std::cell::Cell<u32>) {
    loop {
        tokio::time::sleep(Duration::from_millis(5)).await;
        counted.set(counted.get() + 1);
    }
}

// ------------------------------------------------------------ the actor

use aclrt::actor::{self, ActorConfig, ActorError, Handle, Inbox, Shutdown};

const N: usize = 64;
const MAX_BATCH: usize = 8;
/// The request whose batch faults (its H2D copy's stream task).
const FAULTY: u32 = 1_000;

/// The actor's `serve`: each batch in a scope of its own (a fault fails
/// that scope only), its requests' data copied to the device and back on
/// two lanes; the next batch is collected while the device works.
/// `gate`: the first batch waits for it (back-pressure tests).
fn serve(mut inbox: Inbox<u32, Vec<u32>>, gate: Option<HeldGate>) -> Result<()> {
    let acl = aclrt::Acl::init()?;
    {
        let device = acl.require::<aclrt::HostMode>()?.device(0)?;
        aclrt::make_guard!(g);
        let ctx = device.create_context(g)?;
        let streams = [ctx.create_stream()?, ctx.create_stream()?];
        let mut staging = ctx.alloc_host_zeroed::<u32>(N * MAX_BATCH)?;
        let mut dev = ctx.alloc::<u32>(N * MAX_BATCH)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(N * MAX_BATCH)?;
        let mut next = inbox.next_batch();
        let mut gate = gate;
        while let Some(batch) = next.take() {
            let (reqs, replies) = batch.into_parts();
            for (i, r) in reqs.iter().enumerate() {
                staging[i * N..(i + 1) * N].copy_from_slice(&pattern_u32(N, *r));
            }
            let used = reqs.len() * N;
            let inbox = &mut inbox;
            let next_slot = &mut next;
            let done = ctx.scope(|s| {
                aclrt::make_guard!(g);
                let lanes = s.lanes(&streams, g);
                // Lane 0 takes the first half of the slots, lane 1 the rest.
                let half = N * MAX_BATCH / 2;
                let (st_a, st_b) = staging.split_at(half);
                let (dv_a, dv_b) = dev.split_at_mut(half)?;
                let (o_a, o_b) = out.split_at_mut(half);
                if let Some(g) = gate.take() {
                    lanes[0].host_fn(g.body())?;
                }
                if reqs.contains(&FAULTY) {
                    sim::inject_stream_task_fault(
                        streams[1].as_raw(),
                        1,
                        sys::ACL_ERROR_RT_AICORE_EXCEPTION,
                    );
                }
                let a = lanes[0].copy(st_a, dv_a)?;
                let a = lanes[0].copy(&a, o_a)?;
                let b = lanes[1].copy(st_b, dv_b)?;
                let b = lanes[1].copy(&b, o_b)?;
                block_on(async {
                    let work = async {
                        let (ra, rb) = join(a.wait_async(), b.wait_async()).await;
                        ra?;
                        rb?;
                        Ok::<_, aclrt::Error>(())
                    };
                    let (r, nb) = inbox.collect_during(work).await;
                    *next_slot = nb;
                    r
                })
            });
            match done {
                Ok(()) => replies.send(out.as_slice()[..used].chunks(N).map(<[u32]>::to_vec)),
                Err(e) => replies.fail(e),
            }
            if next.is_none() {
                // Closed only when shut down and drained.
                next = inbox.next_batch();
            }
        }
        drop((streams, staging, dev, out));
        ctx.destroy()?;
        device.reset()?;
    }
    acl.finalize()?;
    Ok(())
}

fn start(
    config: ActorConfig,
    gate: Option<HeldGate>,
) -> (Handle<u32, Vec<u32>>, actor::Actor<'static, aclrt::Error>) {
    actor::spawn(config, move |inbox| serve(inbox, gate)).expect("the actor thread")
}

/// Many `'static` tasks on a multi-thread runtime call the actor; every
/// reply is checked; a fault fails exactly the requests of its batch and
/// the actor goes on; a drained shutdown; a handle after it: `ShutDown`.
#[test]
fn actor_serves_batches_a_fault_fails_only_its_batch() {
    let _sim = take(host_config());
    let (handle, actor) = start(
        ActorConfig {
            queue: 64,
            max_batch: MAX_BATCH,
            window: Duration::from_micros(300),
        },
        None,
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a tokio runtime");
    let results: Vec<(u32, std::result::Result<Vec<u32>, ActorError>)> = rt.block_on(async {
        let calls = (0..64u32).map(|i| {
            let h = handle.clone();
            let seed = if i == 40 { FAULTY } else { i };
            async move { (seed, h.call(seed).await) }
        });
        futures_join_all(calls).await
    });
    let failed: Vec<_> = results.iter().filter(|(_, r)| r.is_err()).collect();
    assert!(
        !failed.is_empty() && failed.len() <= MAX_BATCH,
        "failed: {}",
        failed.len()
    );
    assert!(failed.iter().any(|(s, _)| *s == FAULTY));
    for (seed, r) in &results {
        match r {
            Ok(v) => assert_eq!(v, &pattern_u32(N, *seed)),
            Err(ActorError::Failed(e)) => assert_eq!(e.kind(), ErrorKind::DeviceFault),
            Err(e) => panic!("request {seed}: {e}"),
        }
    }
    // The actor went on: a request after the fault is served.
    assert_eq!(rt.block_on(handle.call(7)), Ok(pattern_u32(N, 7)));
    actor.shutdown(Shutdown::Drain).expect("serve ended Ok");
    assert_eq!(rt.block_on(handle.call(1)), Err(ActorError::ShutDown));
    assert!(!handle.is_open());
    assert_clean();
}

/// Back-pressure: with the device held, a queue of 2 takes 2 requests
/// (beyond the batch in flight), `try_call` then fails `Full`; a refusing
/// shutdown fails the queued ones with `ShutDown`.
#[test]
fn actor_back_pressure_and_refusing_shutdown() {
    let _sim = take(host_config());
    let gate = HeldGate::new();
    let (handle, actor) = start(
        ActorConfig {
            queue: 2,
            max_batch: 1,
            window: Duration::ZERO,
        },
        Some(gate.clone()),
    );
    let first = handle.try_call(1).expect("queued");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a tokio runtime");
    let waiter = std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(first)
    });
    // The first batch is on the device, held; the inbox took the second
    // one (collected while the device works); two more fill the queue.
    assert!(wait_until(|| gate.entered()));
    let mut queued = Vec::new();
    let mut full = false;
    for i in 2..10 {
        match handle.try_call(i) {
            Ok(f) => queued.push(f),
            Err(ActorError::Full) => {
                full = true;
                break;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(full, "a queue of 2 never filled");
    assert!(
        queued.len() <= 3,
        "{} queued with a queue of 2",
        queued.len()
    );
    // Refuse what is queued, then let the device go.
    let stopper = std::thread::spawn(move || actor.shutdown(Shutdown::Refuse));
    assert!(wait_until(|| !handle.is_open()));
    gate.open();
    stopper.join().unwrap().expect("serve ended Ok");
    assert_eq!(waiter.join().unwrap(), Ok(pattern_u32(N, 1)));
    let outcomes: Vec<_> = queued.into_iter().map(|f| rt.block_on(f)).collect();
    assert!(
        outcomes
            .iter()
            .all(|r| matches!(r, Ok(_) | Err(ActorError::ShutDown))),
        "{outcomes:?}"
    );
    assert!(outcomes.contains(&Err(ActorError::ShutDown)));
    assert_clean();
}

/// A handle whose actor's thread ended (here `serve` fails at once: no
/// second runtime may be initialised) gets `Gone`, not a hang.
#[test]
fn actor_handle_after_its_device_is_gone() {
    let _sim = take(host_config());
    let (handle, actor) = actor::spawn(ActorConfig::default(), |inbox: Inbox<u32, u32>| {
        drop(inbox);
        Err::<(), _>(aclrt::Error::WorkAborted)
    })
    .expect("the actor thread");
    assert!(wait_until(|| actor.is_finished()));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a tokio runtime");
    assert_eq!(rt.block_on(handle.call(3)), Err(ActorError::Gone));
    assert_eq!(
        actor.shutdown(Shutdown::Drain),
        Err(aclrt::Error::WorkAborted)
    );
    assert_eq!(rt.block_on(handle.call(3)), Err(ActorError::Gone));
}

/// `join_all` without the futures crate: each on its own tokio task would
/// need `'static` + `Send`; here a local set of polls.
async fn futures_join_all<F: std::future::Future>(
    futs: impl IntoIterator<Item = F>,
) -> Vec<F::Output> {
    let mut futs: Vec<_> = futs.into_iter().map(|f| Some(Box::pin(f))).collect();
    let mut out: Vec<Option<F::Output>> = futs.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, o) in futs.iter_mut().zip(out.iter_mut()) {
            if let Some(fut) = f {
                match fut.as_mut().poll(cx) {
                    Poll::Ready(v) => {
                        *o = Some(v);
                        *f = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    out.into_iter().map(|o| o.expect("ready")).collect()
}

/// A waker that panics (an executor's bug) does not stop the completion
/// service: a later wait is still woken.
#[test]
fn a_panicking_waker_does_not_stop_the_completion_service() -> Result<()> {
    struct Panics;
    impl Wake for Panics {
        fn wake(self: Arc<Self>) {
            panic!("an executor's waker panics");
        }
    }
    in_host_context(|ctx| {
        let stream = ctx.create_stream()?;
        let src = ctx.alloc_host_from(&pattern_u32(64, 4))?;
        let (mut d1, mut d2) = (ctx.alloc::<u32>(64)?, ctx.alloc::<u32>(64)?);
        ctx.scope(|s| {
            aclrt::make_guard!(g);
            let lane = s.lane(&stream, g);
            let gate = HeldGate::new();
            lane.host_fn(gate.body())?;
            let a = lane.copy(&src, &mut d1)?;
            let bad = Waker::from(Arc::new(Panics));
            let (_, good) = counting();
            let mut fa = pin!(a.wait_async());
            assert!(
                fa.as_mut()
                    .poll(&mut TaskContext::from_waker(&good))
                    .is_pending()
            );
            std::thread::sleep(Duration::from_millis(1));
            // Past the early phase: the panicking waker goes to the service.
            assert!(
                fa.as_mut()
                    .poll(&mut TaskContext::from_waker(&bad))
                    .is_pending()
            );
            gate.open();
            lane.synchronize()?;
            // The service survived the panic: a new wait is woken.
            lane.host_fn(hold(5))?;
            let b = lane.copy(&src, &mut d2)?;
            block_on(b.wait_async())?;
            Ok(())
        })?;
        stream.destroy()?;
        Ok(())
    })
}

/// Buffers that crossed lanes: a fault on the lane a buffer came from
/// fails the awaited checked wait (a fence's, on the other lane) exactly
/// as it fails the blocking one, and the awaited `reuse` gives the buffer
/// back only once every lane is idle, as the blocking one does.
#[test]
fn awaited_waits_after_a_hand_off_report_what_the_blocking_ones_report() -> Result<()> {
    fn run(awaited: bool) -> Result<(ErrorKind, bool)> {
        let mut seen = None;
        in_host_context(|ctx| {
            let a = ctx.create_stream()?;
            let b = ctx.create_stream()?;
            let src = ctx.alloc_host_from(&pattern_u32(256, 8))?;
            let mut x = ctx.alloc::<u32>(256)?;
            let mut out = ctx.alloc_host_zeroed::<u32>(256)?;
            let _ = ctx.scope(|s| {
                aclrt::make_guard!(ga);
                aclrt::make_guard!(gb);
                let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                sim::inject_stream_task_fault(a.as_raw(), 1, sys::ACL_ERROR_RT_AICORE_EXCEPTION);
                let on_a = la.copy(&src, &mut x)?;
                let on_b = lb.wait_for(la.signal(on_a)?)?;
                let fence = lb.copy(&on_b, &mut out)?.fence()?;
                let failed = if awaited {
                    block_on(fence.wait_async()).expect_err("a faulted source waited Ok")
                } else {
                    fence
                        .wait_or_keep()
                        .expect_err("a faulted source waited Ok")
                };
                let kind = failed.error().kind();
                let (_, fence) = failed.into_parts();
                let back = if awaited {
                    block_on(fence.reuse_async()).map_err(aclrt::Error::from)?
                } else {
                    fence.reuse()?
                };
                // Both lanes are idle once the buffer is back.
                let idle = a.is_complete()? && b.is_complete()?;
                let _ = back;
                seen = Some((kind, idle));
                Ok(())
            });
            a.destroy()?;
            b.destroy()?;
            Ok(())
        })?;
        Ok(seen.expect("the scope ran"))
    }
    let blocking = run(false)?;
    assert_eq!(blocking.0, ErrorKind::DeviceFault);
    assert!(blocking.1);
    assert_eq!(run(true)?, blocking);
    Ok(())
}

/// The recovery point, awaited: the same failure as the blocking one, and
/// the scope goes on clean after it (a later awaited wait is `Ok`).
#[test]
fn awaited_recovery_point_returns_what_the_blocking_one_returns() -> Result<()> {
    fn run(awaited: bool) -> Result<(Option<ErrorKind>, bool)> {
        let mut seen = None;
        in_host_context(|ctx| {
            let stream = ctx.create_stream()?;
            let src = ctx.alloc_host_from(&pattern_u32(128, 6))?;
            let (mut d1, mut d2) = (ctx.alloc::<u32>(128)?, ctx.alloc::<u32>(128)?);
            let mut out = ctx.alloc_host_zeroed::<u32>(128)?;
            ctx.scope(|s| {
                aclrt::make_guard!(g);
                let lane = s.lane(&stream, g);
                sim::inject_stream_task_fault(
                    stream.as_raw(),
                    1,
                    sys::ACL_ERROR_RT_AICORE_EXCEPTION,
                );
                let _faulted = lane.copy(&src, &mut d1)?;
                let failure = if awaited {
                    block_on(s.recover_async())?
                } else {
                    s.recover()?
                };
                // Work queued after the recovery point is clean.
                let d = lane.copy(&src, &mut d2)?;
                let back = block_on(lane.copy(&d, &mut out)?.wait_async())?;
                let clean = back.as_slice() == &pattern_u32(128, 6)[..];
                seen = Some((failure.map(|e| e.kind()), clean));
                Ok(())
            })?;
            stream.destroy()?;
            Ok(())
        })?;
        Ok(seen.expect("the scope ran"))
    }
    let blocking = run(false)?;
    assert_eq!(blocking, (Some(ErrorKind::DeviceFault), true));
    assert_eq!(run(true)?, blocking);
    Ok(())
}

// ------------------------------------------- the edges of the awaited waits

/// Poll `fut` (with a waker that does nothing) until its early phase is
/// over and its watch went to the completion service, then forget it.
fn register_and_forget<F: Future>(fut: F) {
    let mut fut = Box::pin(fut);
    let waker = Waker::noop();
    let mut cx = TaskContext::from_waker(waker);
    assert!(fut.as_mut().poll(&mut cx).is_pending(), "idle too early");
    std::thread::sleep(Duration::from_millis(1));
    assert!(fut.as_mut().poll(&mut cx).is_pending(), "idle too early");
    core::mem::forget(fut);
}

/// A forgotten `synchronize_async` of a context's default stream, polled
/// past its early phase while the stream was busy, then the context
/// destroyed (or, for the device's implicit context, the device reset):
/// the completion service queries nothing released (the simulator's
/// audit stays clean), in both run modes, round after round. Before, the
/// default stream's watch named no context, no destroy path forgot it, and
/// the service went on querying the released stream. (Found by the fifth
/// outside review, finding 1.)
#[test]
fn a_forgotten_default_stream_watch_ends_with_its_context() -> Result<()> {
    fn round<M: aclrt::RunMode>(acl: &aclrt::Acl, implicit: bool) -> Result<()> {
        let device = acl.require::<M>()?.device(0)?;
        let busy = |ctx: &aclrt::Context<'_, '_, M>| -> Result<()> {
            let stream = ctx.default_stream()?;
            ctx.scope(|s| {
                aclrt::make_guard!(g);
                let lane = s.lane(&stream, g);
                lane.host_fn(hold(20))?;
                // Another watch, with the context, so that the service
                // thread has it current when it queries the default stream.
                register_and_forget(lane.synchronize_async());
                register_and_forget(stream.synchronize_async());
                Ok(())
            })
        };
        if implicit {
            aclrt::make_guard!(g);
            let ctx = device.default_context(g);
            busy(&ctx)?;
        } else {
            aclrt::make_guard!(g);
            let ctx = device.create_context(g)?;
            busy(&ctx)?;
            ctx.destroy()?;
        }
        device.reset()?;
        // Time for the service's next rounds.
        std::thread::sleep(Duration::from_millis(5));
        Ok(())
    }
    for (config, device_mode) in [(host_config(), false), (device_config(), true)] {
        for implicit in [false, true] {
            for _ in 0..4 {
                let _sim = take(config.clone());
                let acl = aclrt::Acl::init()?;
                if device_mode {
                    round::<aclrt::DeviceMode>(&acl, implicit)?;
                } else {
                    round::<aclrt::HostMode>(&acl, implicit)?;
                }
                acl.finalize()?;
                std::thread::sleep(Duration::from_millis(2));
                assert_clean();
            }
        }
    }
    Ok(())
}

/// `Stream::synchronize_async` of a stream that is a lane of an open scope,
/// awaited while the lane is busy (from this thread, and from another
/// thread), and `block_on` of it inside a host function of another lane:
/// none of these is a failure of the lane's work. The next checked wait of
/// correct work on the lane succeeds, the recovery point reports nothing,
/// and the scope ends `Ok`, in both run modes. Before, a query error that
/// described the querying thread (no current context, 107002) was entered
/// as a failure of the stream. (Found by the fifth outside review, finding 3.)
#[test]
fn a_query_error_of_the_caller_is_no_failure_of_the_stream() -> Result<()> {
    fn flow<M: aclrt::RunMode>(acl: &aclrt::Acl) -> Result<()> {
        let device = acl.require::<M>()?.device(0)?;
        aclrt::make_guard!(g);
        let ctx = device.create_context(g)?;
        let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
        let src = ctx.alloc_host_from(&pattern_u32(256, 5))?;
        let mut d = ctx.alloc::<u32>(256)?;
        let mut out = ctx.alloc_host_zeroed::<u32>(256)?;
        let seen = AtomicUsize::new(0);
        for _ in 0..3 {
            ctx.scope(|s| {
                aclrt::make_guard!(ga);
                aclrt::make_guard!(gb);
                let (la, lb) = (s.lane(&a, ga), s.lane(&b, gb));
                // Awaited on this thread while the lane is busy.
                la.host_fn(hold(3))?;
                block_on(a.synchronize_async())?;
                // Awaited from another thread while the lane is busy.
                la.host_fn(hold(3))?;
                std::thread::scope(|t| {
                    t.spawn(|| block_on(a.synchronize_async()))
                        .join()
                        .expect("the health check")
                })?;
                // From a host function of lane b (the runtime's callback
                // thread): refused there, as every wait is.
                la.host_fn(hold(3))?;
                let a_ref = &a;
                let seen = &seen;
                seen.store(0, Ordering::SeqCst);
                lb.host_fn(move || {
                    let r = match block_on(a_ref.synchronize_async()) {
                        Err(aclrt::Error::InCallback { .. }) => 1,
                        Ok(()) => 2,
                        Err(_) => 3,
                    };
                    seen.store(r, Ordering::SeqCst);
                })?;
                assert!(wait_until(|| seen.load(Ordering::SeqCst) != 0));
                let r = seen.load(Ordering::SeqCst);
                assert!(r == 1 || r == 2, "{r}");
                // From a host function of lane a itself: the stream cannot
                // go idle while the host function waits, so the wait is
                // refused at once, never a hang.
                seen.store(0, Ordering::SeqCst);
                la.host_fn(move || {
                    let r = match block_on(a_ref.synchronize_async()) {
                        Err(aclrt::Error::InCallback { .. }) => 1,
                        Ok(()) => 2,
                        Err(_) => 3,
                    };
                    seen.store(r, Ordering::SeqCst);
                })?;
                assert!(wait_until(|| seen.load(Ordering::SeqCst) != 0), "a hang");
                assert_eq!(seen.load(Ordering::SeqCst), 1);
                // Correct work on the lane: its checked wait succeeds.
                let x = la.copy(&src, &mut d)?;
                let o = la.copy(&x, &mut out)?.wait()?;
                assert_eq!(&o[..], &pattern_u32(256, 5)[..]);
                assert_eq!(s.recover()?, None, "a failure was entered");
                Ok(())
            })?;
        }
        drop((src, d, out));
        a.destroy()?;
        b.destroy()?;
        ctx.destroy()?;
        device.reset()
    }
    for (config, device_mode) in [(host_config(), false), (device_config(), true)] {
        let _sim = take(config);
        let acl = aclrt::Acl::init()?;
        if device_mode {
            flow::<aclrt::DeviceMode>(&acl)?;
        } else {
            flow::<aclrt::HostMode>(&acl)?;
        }
        acl.finalize()?;
        assert_clean();
    }
    Ok(())
}

/// The actor's liveness lives in its thread: whatever `serve` does with
/// its inbox and replies — forgets the inbox and returns, forgets one
/// batch's replies and returns, takes a batch and panics, forgets the inbox
/// and fails — every call pending then, and every later one, gets `Gone`
/// or `ShutDown`, never a hang, and the handle says it is closed. Before,
/// liveness rested on the `Drop`s of the inbox and the replies, which
/// `mem::forget` skips. (Found by the fifth outside review, finding 2.)
#[test]
fn an_actor_whose_serve_forgets_its_inbox_or_replies_never_hangs_a_call() {
    #[derive(Clone, Copy, Debug)]
    enum Ends {
        InboxForgotten,
        RepliesForgotten,
        BatchForgottenAndPanics,
        InboxForgottenAndFails,
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .expect("a tokio runtime");
    for ends in [
        Ends::InboxForgotten,
        Ends::RepliesForgotten,
        Ends::BatchForgottenAndPanics,
        Ends::InboxForgottenAndFails,
    ] {
        let started = Arc::new(std::sync::Barrier::new(2));
        let go = started.clone();
        let (handle, actor) = actor::spawn(
            ActorConfig {
                queue: 8,
                max_batch: 2,
                window: Duration::from_millis(1),
            },
            move |mut inbox: Inbox<u32, u32>| {
                go.wait();
                match ends {
                    Ends::InboxForgotten => {
                        // Let calls queue, then forget the inbox.
                        std::thread::sleep(Duration::from_millis(20));
                        core::mem::forget(inbox);
                        Ok(())
                    }
                    Ends::InboxForgottenAndFails => {
                        let batch = inbox.next_batch().expect("a batch");
                        core::mem::forget(inbox);
                        core::mem::forget(batch);
                        Err(aclrt::Error::WorkAborted)
                    }
                    Ends::RepliesForgotten => {
                        let batch = inbox.next_batch().expect("a batch");
                        let (_, replies) = batch.into_parts();
                        core::mem::forget(replies);
                        core::mem::forget(inbox);
                        Ok(())
                    }
                    Ends::BatchForgottenAndPanics => {
                        let batch = inbox.next_batch().expect("a batch");
                        core::mem::forget(batch);
                        core::mem::forget(inbox);
                        panic!("serve panics");
                    }
                }
            },
        )
        .expect("the actor thread");
        let calls: Vec<_> = (0..6)
            .map(|i| {
                let h = handle.clone();
                rt.spawn(async move { h.call(i).await })
            })
            .collect();
        started.wait();
        let outcomes: Vec<_> = rt.block_on(async {
            let mut out = Vec::new();
            for c in calls {
                let r = tokio::time::timeout(HANG_GUARD, c)
                    .await
                    .unwrap_or_else(|_| panic!("{ends:?}: a call hung"))
                    .expect("the task");
                out.push(r);
            }
            out
        });
        assert!(
            outcomes
                .iter()
                .all(|r| matches!(r, Err(ActorError::Gone | ActorError::ShutDown))),
            "{ends:?}: {outcomes:?}"
        );
        assert!(!handle.is_open(), "{ends:?}: the handle says open");
        let later = rt.block_on(async {
            tokio::time::timeout(HANG_GUARD, handle.call(9))
                .await
                .unwrap_or_else(|_| panic!("{ends:?}: a later call hung"))
        });
        assert!(
            matches!(later, Err(ActorError::Gone | ActorError::ShutDown)),
            "{ends:?}: {later:?}"
        );
        let joined = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            actor.shutdown(Shutdown::Drain)
        }));
        match ends {
            Ends::BatchForgottenAndPanics => assert!(joined.is_err(), "the panic is resumed"),
            Ends::InboxForgottenAndFails => {
                assert_eq!(joined.ok(), Some(Err(aclrt::Error::WorkAborted)))
            }
            _ => assert_eq!(joined.ok(), Some(Ok(()))),
        }
    }
}
