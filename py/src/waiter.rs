//! Awaiting the runtime from `asyncio`: a wait (a stream's synchronisation,
//! an event's) runs on a waiting thread of this module, GIL released, and
//! its end calls the Python `notify(ret)` (which hands the result to the
//! event loop with `loop.call_soon_threadsafe`). Work that is done, or
//! about to be, is waited for at once instead (`_wait_now`, a short poll):
//! the event loop's thread waits no longer than that poll.
//!
//! A wait holds uses of its handles from the call that queues it to its
//! end (a release meanwhile is refused, as for a blocking wait), and settles
//! the work booked before it began (`memory::BOOK`), in Rust, before Python
//! hears of it: a cancelled `await` leaves the wait to finish and its
//! settlement to happen, and drops only the result.
//!
//! Waiting threads: one per wait in flight at most, reused (an idle one
//! takes the next wait; one idle for `IDLE` ends). A wait never queues
//! behind another (a wait can last for ever: a stream behind a callback
//! that waits for another task), so a new thread starts whenever none is
//! idle. The pool's lock is held only to push and pop a wait, never across
//! a runtime call or Python code.
#![deny(unsafe_code)]

use crate::ffi;
use crate::handle::Handle;
use crate::memory::{BOOK, Memory, busy};
use crate::protocol::work_book::WaitTicket;
use pyo3::prelude::*;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Condvar, LazyLock, Mutex};
use std::time::{Duration, Instant};

/// How long a waiting thread stays for the next wait.
const IDLE: Duration = Duration::from_secs(10);

/// The longest `_wait_now` polls for work that is about to finish before
/// the wait is handed to a waiting thread (a hand-off costs tens of
/// microseconds on an idle machine, far more on a loaded one: two threads'
/// wake-ups). It polls about twice the recent waits' typical length, and
/// not at all once they are longer than this: long work is handed off at
/// once, so the event loop is never held for long.
const SPIN_MAX: Duration = Duration::from_micros(200);

/// The recent waits' typical length in nanoseconds (a moving average of
/// the time from an awaited wait's start to its work's end).
static TYPICAL_NS: AtomicU64 = AtomicU64::new(0);

/// Counts one awaited wait that lasted `d` in the moving average.
fn observe(d: Duration) {
    let ns = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
    let old = TYPICAL_NS.load(Relaxed);
    let new = if old == 0 { ns } else { old - old / 8 + ns / 8 };
    TYPICAL_NS.store(new, Relaxed);
}

/// How long to poll now.
fn spin_budget() -> Duration {
    let typical = Duration::from_nanos(TYPICAL_NS.load(Relaxed));
    if typical > SPIN_MAX {
        Duration::ZERO
    } else {
        (typical * 2).clamp(Duration::from_micros(20), SPIN_MAX)
    }
}

type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    idle: usize,
}

struct Pool {
    q: Mutex<Queue>,
    cv: Condvar,
}

static POOL: LazyLock<Pool> = LazyLock::new(|| Pool {
    q: Mutex::new(Queue::default()),
    cv: Condvar::new(),
});

fn queue() -> std::sync::MutexGuard<'static, Queue> {
    POOL.q.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `job` on an idle waiting thread, or a new one.
fn submit(job: Job) -> std::io::Result<()> {
    let mut q = queue();
    if q.idle > q.jobs.len() {
        q.jobs.push_back(job);
        drop(q);
        POOL.cv.notify_one();
        return Ok(());
    }
    drop(q);
    std::thread::Builder::new()
        .name("aclrt await".into())
        .spawn(move || {
            job();
            serve();
        })
        .map(|_| ())
}

/// A waiting thread's loop after its first wait: the next waits, until idle
/// for [`IDLE`].
fn serve() {
    let mut q = queue();
    loop {
        if let Some(job) = q.jobs.pop_front() {
            drop(q);
            job();
            q = queue();
            continue;
        }
        q.idle += 1;
        let (g, timeout) = POOL
            .cv
            .wait_timeout(q, IDLE)
            .unwrap_or_else(|e| e.into_inner());
        q = g;
        q.idle -= 1;
        if timeout.timed_out() && q.jobs.is_empty() {
            return;
        }
    }
}

/// Whether the stream (`kind` 0) or the event of runtime handle `value` is
/// done, polled (GIL released) for up to [`spin_budget`].
fn done_soon(py: Python<'_>, kind: u8, value: u64, start: Instant) -> bool {
    let budget = spin_budget();
    crate::gil::blocking(py, move || {
        loop {
            let done = match kind {
                0 => ffi::stream_query(value) == (0, 0), // ACL_STREAM_STATUS_COMPLETE
                _ => ffi::query_event_status(value) == (1, 0), // ..._STATUS_COMPLETE
            };
            if done {
                observe(start.elapsed());
                return true;
            }
            if start.elapsed() >= budget {
                return false;
            }
            // Yield, not spin: on a machine with fewer free cores than
            // runnable threads, a spinning poll takes the core that the
            // runtime's worker needs to finish the work polled for.
            std::thread::yield_now();
        }
    })
}

/// `_wait_now(kind, ctx, target) -> ret or None`: the fast path of an
/// awaited wait: when the stream (`kind` 0) or event (1) of handle `target`
/// is done, or about to be (polled briefly), its wait is made here (it
/// returns at once) and settles what it covers, as `_sync_stream` and
/// `_sync_event` do: the runtime's ret; otherwise `None` (nothing done:
/// hand it to `_wait_async`).
#[pyfunction]
pub fn _wait_now(
    py: Python<'_>,
    kind: u8,
    ctx: &Bound<'_, Handle>,
    target: &Bound<'_, Handle>,
) -> PyResult<Option<i32>> {
    crate::fork::check()?;
    let value = target.get().begin_use()?;
    let done = done_soon(py, kind, value, Instant::now());
    if let Some(cb) = target.get().end_use_detached()
        && let Err(e) = cb.call0(py)
    {
        e.write_unraisable(py, None);
    }
    if !done {
        return Ok(None);
    }
    Ok(Some(match kind {
        0 => crate::book::_sync_stream(py, ctx, target)?,
        _ => crate::book::_sync_event(py, ctx, target)?,
    }))
}

/// What a wait waits for.
enum Target {
    Stream(u64),
    Event(WaitTicket),
}

/// `_wait_async(kind, ctx, target, notify)`: waits, on a waiting thread, for
/// the stream (`kind` 0) or the event (`kind` 1) of handle `target`, in
/// context `ctx`; then calls `notify(ret)` holding the GIL (skipped once
/// the interpreter is shutting down). The work booked before this call is
/// settled when the wait succeeds.
#[pyfunction]
pub fn _wait_async(
    kind: u8,
    ctx: Bound<'_, Handle>,
    target: Bound<'_, Handle>,
    notify: Py<PyAny>,
) -> PyResult<()> {
    crate::fork::check()?;
    if kind > 1 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "kind is 0 (stream) or 1 (event)",
        ));
    }
    ctx.get().begin_use()?;
    let value = match target.get().begin_use() {
        Ok(v) => v,
        Err(e) => {
            end_uses_attached(ctx.py(), &[ctx.get()]);
            return Err(e);
        }
    };
    let serial = target.get().serial();
    target.get().count_await(true);
    let what = match kind {
        0 => BOOK.point(false, serial).map(Target::Stream),
        _ => BOOK.wait_begin(false, serial).map(Target::Event),
    };
    let what = match what {
        Ok(w) => w,
        Err(f) => {
            target.get().count_await(false);
            end_uses_attached(ctx.py(), &[target.get(), ctx.get()]);
            return Err(crate::memory::forked(f));
        }
    };
    let (ctx, target) = (ctx.unbind(), target.unbind());
    let start = Instant::now();
    let job: Job = Box::new(move || run(ctx, target, value, serial, what, notify, start));
    if let Err(e) = submit(job) {
        // The job (and its handles) went with the failed spawn, unrun: its
        // uses stay counted (the handles can no longer be released), which
        // only a thread limit of the system reaches.
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "cannot start a waiting thread: {e}"
        )));
    }
    Ok(())
}

fn end_uses_attached(py: Python<'_>, handles: &[&Handle]) {
    for h in handles {
        if let Some(cb) = h.end_use_detached()
            && let Err(e) = cb.call0(py)
        {
            e.write_unraisable(py, None);
        }
    }
}

/// The wait, on a waiting thread.
fn run(
    ctx: Py<Handle>,
    target: Py<Handle>,
    value: u64,
    serial: u64,
    what: Target,
    notify: Py<PyAny>,
    start: Instant,
) {
    let ret = match ctx.get().bind() {
        Ok(0) => match what {
            Target::Stream(_) => ffi::synchronize_stream(value),
            Target::Event(_) => ffi::synchronize_event(value),
        },
        Ok(ret) => ret,
        // Unreachable: a context in use is open.
        Err(_) => ffi::set_context(ctx.get().raw()),
    };
    observe(start.elapsed());
    let forked = crate::fork::forked();
    let settled: Vec<Py<Memory>> = if ret == 0 {
        match what {
            Target::Stream(upto) => BOOK.settle(forked, serial, Some(upto), busy),
            Target::Event(t) => BOOK.wait_end(forked, serial, t, busy),
        }
        .unwrap_or_default()
    } else {
        Vec::new()
    };
    // The uses end before this thread needs the GIL: a release that follows
    // the same work on the loop's thread (a with-block's end) finds none.
    target.get().count_await(false);
    let idle = [
        target.get().end_use_detached(),
        ctx.get().end_use_detached(),
    ];
    let mut objs = Some((settled, idle, notify, ctx, target));
    let ran = crate::gil::attach_unless_exiting(|py| {
        if let Some((settled, idle, notify, _ctx, _target)) = objs.take() {
            drop(settled);
            for cb in idle.into_iter().flatten() {
                if let Err(e) = cb.call0(py) {
                    e.write_unraisable(py, None);
                }
            }
            if let Err(e) = notify.call1(py, (ret,)) {
                e.write_unraisable(py, Some(notify.bind(py)));
            }
        }
    });
    if ran.is_none() {
        // The interpreter is gone or going: its objects are leaked, never
        // touched without it.
        std::mem::forget(objs.take());
    }
}
