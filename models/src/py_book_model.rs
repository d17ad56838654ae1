//! The Pythonic layer's record of queued work (`py/src/protocol/work_book.rs`)
//! and its deferred release (`py/src/protocol/aside.rs` around
//! `memory_core.rs`), which were Python code under a Python lock before:
//!
//! * an event's wait settles only the work of the mark taken before the
//!   runtime's wait, while another thread queues new work and records the
//!   event again (a signal handler or a profile hook does the same);
//! * a forked child's call refuses before the book's lock, which a thread
//!   that does not exist in the child may hold for ever;
//! * a deferred release run by the end of the last view on a thread with an
//!   error pending runs with that error set aside, and restores it.
//!
//! The environment of the first: a stream of tasks (`queued`, the runtime
//! position of the last task; `done`, completed up to), an event's runtime
//! state (`ev_at`, the position its last record covers) and the buffer's
//! busy flag (the book's setter). At the end, a buffer the book calls idle
//! has all its tasks done.

use crate::aside::with_error_aside;
use crate::harness::{assert_bites, assert_bites_in_child, explore, lock};
use crate::memory_core::{Free, MemoryCore};
use crate::sync::{Arc, AtomicBool, AtomicU64, AtomicUsize, Condvar, Mutex, Ordering, thread};
use crate::work_book::WorkBook;
use std::cell::RefCell;

const S: u64 = 1;
const E: u64 = 2;
const BUF: u64 = 3;

struct World {
    book: WorkBook<u64>,
    busy: AtomicBool,
    queued: AtomicU64,
    done: AtomicU64,
    ev_at: AtomicU64,
}

fn world() -> Arc<World> {
    Arc::new(World {
        book: WorkBook::new(),
        busy: AtomicBool::new(false),
        queued: AtomicU64::new(0),
        done: AtomicU64::new(0),
        ev_at: AtomicU64::new(0),
    })
}

impl World {
    fn set_busy(&self, b: bool) {
        self.busy.store(b, Ordering::SeqCst);
    }

    /// A copy of `BUF` queued on `S`, then booked (the library's caller
    /// holds the buffer across the two).
    fn copy(&self) {
        self.queued.fetch_add(1, Ordering::SeqCst);
        self.book
            .queued(false, S, [(BUF, BUF)], |_, b| self.set_busy(b))
            .unwrap();
    }

    /// `stream.record(event)`: the book's ticket, the runtime's record, the
    /// mark.
    fn record(&self) {
        let t = self.book.record_begin(false, E, S).unwrap();
        self.ev_at
            .store(self.queued.load(Ordering::SeqCst), Ordering::SeqCst);
        self.book.record_end(E, t, true);
    }

    /// `event.synchronize()`: the mark, the runtime's wait (the work its
    /// record covers completes), the settlement.
    fn wait_event(&self) {
        let t = self.book.wait_begin(false, E).unwrap();
        let upto = self.ev_at.load(Ordering::SeqCst);
        self.done.fetch_max(upto, Ordering::SeqCst);
        self.book
            .wait_end(false, E, t, |_, b| self.set_busy(b))
            .unwrap();
    }
}

/// One copy and record; a wait on one thread while another thread queues
/// a second copy and records the event again.
fn rerecord_during_wait() {
    let w = world();
    w.copy();
    w.record();
    let w1 = w.clone();
    let other = thread::spawn(move || {
        w1.copy();
        w1.record();
    });
    w.wait_event();
    other.join().unwrap();
    if !w.busy.load(Ordering::SeqCst) {
        assert_eq!(
            w.done.load(Ordering::SeqCst),
            w.queued.load(Ordering::SeqCst),
            "the book calls the buffer idle while a copy of it is not done"
        );
    }
    // A full synchronisation of the stream settles everything.
    let upto = w.book.point(false, S).unwrap();
    w.done
        .store(w.queued.load(Ordering::SeqCst), Ordering::SeqCst);
    w.book
        .settle(false, S, Some(upto), |_, b| w.set_busy(b))
        .unwrap();
    assert!(!w.busy.load(Ordering::SeqCst));
}

/// Two threads record the event at once (one after queueing a second
/// copy); the runtime keeps whichever record came last, so the book keeps
/// no mark unless one record was alone; then a wait.
fn racing_records() {
    let w = world();
    w.copy();
    let (w1, w2) = (w.clone(), w.clone());
    let a = thread::spawn(move || w1.record());
    let b = thread::spawn(move || {
        w2.copy();
        w2.record();
    });
    a.join().unwrap();
    b.join().unwrap();
    w.wait_event();
    if !w.busy.load(Ordering::SeqCst) {
        assert_eq!(
            w.done.load(Ordering::SeqCst),
            w.queued.load(Ordering::SeqCst),
            "the book calls the buffer idle while a copy of it is not done"
        );
    }
}

/// A thread forks while another holds the book's lock (inside the busy
/// setter, which runs under it); the child's close asks the book: refused
/// at once, never blocked on the lock (whose holder never runs again in the
/// child: here it waits for the child).
fn fork_while_booking() {
    let w = world();
    // (forked, child done), and their condition variable.
    let env = Arc::new((Mutex::new((false, false)), Condvar::new()));
    let (w1, env1) = (w.clone(), env.clone());
    let child = thread::spawn(move || {
        let (m, cv) = &*env1;
        let mut g = lock(m);
        while !g.0 {
            g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
        drop(g);
        let r = w1.book.settle(true, S, None, |_, _| ());
        assert!(r.is_err(), "a forked child's call must be refused");
        lock(m).1 = true;
        cv.notify_all();
    });
    w.book
        .queued(false, S, [(BUF, BUF)], |_, _| {
            // The fork, while this thread holds the book's lock.
            let (m, cv) = &*env;
            let mut g = lock(m);
            g.0 = true;
            cv.notify_all();
            while !g.1 {
                g = cv.wait(g).unwrap_or_else(|e| e.into_inner());
            }
        })
        .unwrap();
    child.join().unwrap();
}

/// The last view of a buffer ends on a thread with an error pending while
/// another thread defers the buffer's release (a with-block's end): the
/// release, wherever it runs, runs with no error set, and the error is
/// pending again afterwards.
fn release_with_error_pending() {
    let m: Arc<MemoryCore<u32, u32>> = Arc::new(MemoryCore::new());
    m.lock().open(true, 0x1000, 64, 0, 5);
    let frees = Arc::new(AtomicUsize::new(0));
    m.export(false, |_| Ok(()), |_| (), |_| Ok::<_, ()>(()))
        .unwrap();
    let (m1, f1) = (m.clone(), frees.clone());
    let viewer = thread::spawn(move || {
        // This thread's error indicator: an exception propagates.
        let indicator: RefCell<Option<&str>> = RefCell::new(Some("ValueError"));
        if let Some(token) = m1.release_export() {
            assert_eq!(token, 9);
            with_error_aside(
                || indicator.borrow_mut().take(),
                |e| *indicator.borrow_mut() = Some(e),
                || {
                    assert!(
                        indicator.borrow().is_none(),
                        "a release runs Python code with an exception set"
                    );
                    if let Free::Now { .. } = m1.free(false, None) {
                        f1.fetch_add(1, Ordering::SeqCst);
                    }
                },
            );
        }
        assert_eq!(*indicator.borrow(), Some("ValueError"), "the error is lost");
    });
    if let Free::Now { .. } = m.free(true, Some(9)) {
        frees.fetch_add(1, Ordering::SeqCst);
    }
    viewer.join().unwrap();
    assert_eq!(frees.load(Ordering::SeqCst), 1, "freed exactly once");
}

#[test]
fn py_book_rerecord_during_wait() {
    explore("py_book_rerecord_during_wait", None, rerecord_during_wait);
}

#[test]
fn py_book_racing_records() {
    explore("py_book_racing_records", None, racing_records);
}

#[test]
fn mutant_book_record_ignores_overlap() {
    assert_bites("book-record-ignores-overlap", None, racing_records);
}

#[test]
fn py_book_fork_while_booking() {
    explore("py_book_fork_while_booking", None, fork_while_booking);
}

#[test]
fn py_book_release_with_error_pending() {
    explore(
        "py_book_release_with_error_pending",
        None,
        release_with_error_pending,
    );
}

#[test]
fn mutant_book_mark_after_wait() {
    assert_bites("book-mark-after-wait", None, rerecord_during_wait);
}

#[test]
fn mutant_book_fork_check_after_lock() {
    assert_bites_in_child(
        "py_book_model::mutant_book_fork_check_after_lock",
        "book-fork-check-after-lock",
        None,
        fork_while_booking,
        "deadlock",
    );
}

#[test]
fn mutant_release_with_error_pending() {
    assert_bites(
        "release-with-error-pending",
        None,
        release_with_error_pending,
    );
}
