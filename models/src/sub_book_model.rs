//! The book of report subscriptions (`protocol::sub_book`): unsubscribing
//! while a queued callback stops the reporter, and a reporter's exit
//! against the destruction of a stream whose subscription was leaked.
//!
//! Environment: `aclrtUnSubscribeReport` (the `call`) runs the stream's
//! queued callbacks on the calling thread; a reporter's thread waits until
//! it is told to stop, then undoes its own subscriptions
//! (`report::thread_exiting`) and ends; `Reporter::stop` tells it and joins
//! it. A stream's destruction (`report::stream_destroying`) undoes the
//! stream's subscriptions, then frees the handle. Loom reports a deadlock
//! when every thread is blocked.
//!
//! The properties: no deadlock; each entry is unsubscribed exactly once;
//! no unsubscription uses a freed stream handle.

use crate::harness::{assert_bites, assert_bites_in_child, explore, lock};
use crate::sub_book::{self, SubBook};
use crate::sync::{Arc, Condvar, Mutex, thread};

const S: usize = 1;
const S2: usize = 2;
const C: usize = 10;
const TID: u64 = 7;

struct World {
    book: Mutex<SubBook<usize>>,
    undone: Condvar,
    /// The reporter was told to stop.
    stop: Mutex<bool>,
    wake: Condvar,
    /// Unsubscriptions made (streams 1 and 2), and whether each stream's
    /// handle was freed.
    calls: Mutex<[u32; 2]>,
    freed: Mutex<[bool; 2]>,
}

impl World {
    fn new() -> Arc<World> {
        let w = Arc::new(World {
            book: Mutex::new(SubBook::new()),
            undone: Condvar::new(),
            stop: Mutex::new(false),
            wake: Condvar::new(),
            calls: Mutex::new([0; 2]),
            freed: Mutex::new([false; 2]),
        });
        w.subscribe(S);
        w
    }

    fn subscribe(&self, s: usize) {
        let r: Result<(), ()> =
            sub_book::subscribe(&self.book, &self.undone, (s, C, TID), || Ok(()), |_| {});
        r.unwrap();
    }

    /// `aclrtUnSubscribeReport` of stream `s`, without callbacks to run.
    fn unsubscribe_raw(&self, s: usize) -> Result<(), ()> {
        assert!(
            !lock(&self.freed)[s - 1],
            "aclrtUnSubscribeReport on stream {s}, whose handle was freed"
        );
        lock(&self.calls)[s - 1] += 1;
        Ok(())
    }

    /// `Stream::destroy` of stream `s`: its subscriptions are undone (after
    /// those another thread is undoing), then the handle is freed.
    fn destroy(&self, s: usize) {
        sub_book::undo_where(
            &self.book,
            &self.undone,
            |e| e.stream == s,
            true,
            |u| self.unsubscribe_raw(u.stream),
            |_| {},
        );
        lock(&self.freed)[s - 1] = true;
    }

    /// The reporter's thread: wait to be told to stop, then undo what is
    /// left of its subscriptions, without waiting for others.
    fn reporter(&self) {
        let mut stop = lock(&self.stop);
        while !*stop {
            stop = self.wake.wait(stop).unwrap();
        }
        drop(stop);
        sub_book::undo_where(
            &self.book,
            &self.undone,
            |s| s.tid == TID,
            false,
            |u| self.unsubscribe_raw(u.stream),
            |_| {},
        );
    }

    fn tell_stop(&self) {
        *lock(&self.stop) = true;
        self.wake.notify_all();
    }

    /// Each of the `streams` subscriptions was unsubscribed exactly once.
    fn check_once(&self, streams: usize) {
        let calls = *lock(&self.calls);
        for (i, c) in calls.iter().enumerate().take(streams) {
            assert_eq!(*c, 1, "stream {}: unsubscribed exactly once", i + 1);
        }
        assert!(sub_book::is_empty(&self.book));
    }
}

/// The `Subscription` is dropped while a callback queued on its stream is
/// pending; `aclrtUnSubscribeReport` runs that callback on the dropping
/// thread, and the callback stops the reporter (`Reporter::stop`: tell it,
/// join its thread).
fn stop_in_callback() {
    let w = World::new();
    let w1 = w.clone();
    let reporter = thread::spawn(move || w1.reporter());
    let mut reporter = Some(reporter);
    let r: Result<(), ()> = sub_book::unsubscribe(
        &w.book,
        &w.undone,
        (S, TID),
        |u| {
            let r = w.unsubscribe_raw(u.stream);
            // The queued callback: stop the reporter.
            w.tell_stop();
            if let Some(h) = reporter.take() {
                h.join().unwrap();
            }
            r
        },
        |_| {},
    );
    r.unwrap();
    w.check_once(1);
}

/// The `Subscription` was leaked; the reporter is stopped (its exit undoes
/// the subscription) while another thread destroys the stream.
fn exit_vs_destroy() {
    let w = World::new();
    let w1 = w.clone();
    let reporter = thread::spawn(move || w1.reporter());
    w.tell_stop();
    w.destroy(S);
    reporter.join().unwrap();
    w.check_once(1);
}

/// Three threads, two streams: the reporter also has a leaked subscription
/// of stream 2, which a third thread destroys while the first
/// subscription is dropped with a callback that stops the reporter.
fn three_threads() {
    let w = World::new();
    w.subscribe(S2);
    let (w1, w2) = (w.clone(), w.clone());
    let reporter = thread::spawn(move || w1.reporter());
    let destroyer = thread::spawn(move || w2.destroy(S2));
    let mut reporter = Some(reporter);
    let r: Result<(), ()> = sub_book::unsubscribe(
        &w.book,
        &w.undone,
        (S, TID),
        |u| {
            let r = w.unsubscribe_raw(u.stream);
            w.tell_stop();
            if let Some(h) = reporter.take() {
                h.join().unwrap();
            }
            r
        },
        |_| {},
    );
    r.unwrap();
    destroyer.join().unwrap();
    w.check_once(2);
}

#[test]
fn subs_stop_in_callback() {
    explore("subs_stop_in_callback", None, stop_in_callback);
}

#[test]
fn subs_three_threads() {
    explore("subs_three_threads", None, three_threads);
}

#[test]
fn subs_exit_vs_destroy() {
    explore("subs_exit_vs_destroy", None, exit_vs_destroy);
}

/// Loom and shuttle both report a deadlock ("deadlock").
#[test]
fn mutant_subs_unsubscribe_under_lock() {
    assert_bites_in_child(
        "sub_book_model::mutant_subs_unsubscribe_under_lock",
        "subs-unsubscribe-under-lock",
        None,
        stop_in_callback,
        "deadlock",
    );
}

#[test]
fn mutant_subs_exit_waits() {
    assert_bites_in_child(
        "sub_book_model::mutant_subs_exit_waits",
        "subs-exit-waits",
        None,
        stop_in_callback,
        "deadlock",
    );
}

#[test]
fn mutant_subs_destroy_no_wait() {
    assert_bites("subs-destroy-no-wait", None, exit_vs_destroy);
}
