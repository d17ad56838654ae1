//! The protocol core of the book of report subscriptions (`report`):
//! who undoes a subscription, and when a stream's
//! destruction may go on.
//!
//! `aclrtUnSubscribeReport` runs the stream's queued callbacks on the
//! calling thread: user code, which may stop or drop a reporter, whose
//! thread then takes the book's lock as it exits. So the book's lock is
//! never held across that call:
//! * an entry is *claimed* under the lock (marked `undoing`: nobody else
//!   touches it), unsubscribed after releasing it, and removed under the
//!   lock again ([`unsubscribe`], [`undo_where`]); waiters are notified;
//! * a destruction of a stream or context (`wait`) first waits, on the
//!   condition variable, until no entry of it is being undone by another
//!   thread: that thread still uses the handle;
//! * a reporter's thread that exits (no `wait`) leaves the entries another
//!   thread is undoing to that thread, without waiting: that thread may be
//!   running a callback that waits for this one to exit.
//!
//! Each entry is unsubscribed once, by the thread that claimed it.
#![deny(unsafe_code)]

use super::sync::{Condvar, Mutex, Rank, lock, mutant, wait};

/// One subscription of stream `K` (with its context) to reporting thread
/// `tid`.
pub(crate) struct Sub<K> {
    /// Unique among the entries ever made.
    id: u64,
    pub(crate) stream: K,
    pub(crate) ctx: K,
    pub(crate) tid: u64,
    /// A thread is undoing it: nobody else touches it.
    undoing: bool,
}

/// An entry being undone by the calling thread (copied out of the book).
pub(crate) struct Undo<K> {
    id: u64,
    pub(crate) stream: K,
    pub(crate) ctx: K,
    pub(crate) tid: u64,
}

/// The book: its entries and the ids of new ones.
pub(crate) struct SubBook<K> {
    subs: Vec<Sub<K>>,
    next: u64,
}

impl<K> SubBook<K> {
    /// An empty book.
    pub(crate) const fn new() -> SubBook<K> {
        SubBook {
            subs: Vec::new(),
            next: 1,
        }
    }
}

fn claim<K: Copy>(sub: &mut Sub<K>) -> Undo<K> {
    sub.undoing = true;
    Undo {
        id: sub.id,
        stream: sub.stream,
        ctx: sub.ctx,
        tid: sub.tid,
    }
}

/// Subscribe: first waits until no other thread is undoing a subscription
/// of `stream` (its unsubscription is still running the stream's queued
/// callbacks; a runtime that lists the subscription until that call returns
/// would refuse a new one); then `call` (`aclrtSubscribeReport`, which runs
/// nothing) is made holding the book's lock; on success the entry is added
/// and `added` told, under the lock.
pub(crate) fn subscribe<K: Copy + PartialEq, E>(
    book: &Mutex<SubBook<K>>,
    undone: &Condvar,
    (stream, ctx, tid): (K, K, u64),
    call: impl FnOnce() -> Result<(), E>,
    added: impl FnOnce(K),
) -> Result<(), E> {
    let mut b = lock(book, Rank::Subs);
    while b.subs.iter().any(|s| s.undoing && s.stream == stream) {
        b = wait(b, undone);
    }
    call()?;
    let id = b.next;
    b.next += 1;
    b.subs.push(Sub {
        id,
        stream,
        ctx,
        tid,
        undoing: false,
    });
    added(stream);
    Ok(())
}

/// `call` (`aclrtUnSubscribeReport`) for the claimed entry `u`, holding no
/// lock of the book; then the entry leaves the book (`remove_on_error`:
/// also on an error; else it stays, no longer `undoing`), `removed` is told
/// under the lock, and waiters are woken.
fn undo<K: Copy, E>(
    book: &Mutex<SubBook<K>>,
    undone: &Condvar,
    u: &Undo<K>,
    remove_on_error: bool,
    call: &mut impl FnMut(&Undo<K>) -> Result<(), E>,
    removed: &mut impl FnMut(K),
) -> Result<(), E> {
    let done = if mutant("subs-unsubscribe-under-lock") {
        // The old bug: the lock held across the call.
        let _held = lock(book, Rank::Subs);
        call(u)
    } else {
        call(u)
    };
    let mut b = lock(book, Rank::Subs);
    if let Some(i) = b.subs.iter().position(|s| s.id == u.id) {
        if done.is_ok() || remove_on_error {
            let sub = b.subs.swap_remove(i);
            removed(sub.stream);
        } else {
            b.subs[i].undoing = false;
        }
    }
    undone.notify_all();
    done
}

/// Undo the subscription of `stream` to `tid`, if it is in the book and
/// not being undone already (`Ok` then: it was, or is being, undone).
pub(crate) fn unsubscribe<K: Copy + PartialEq, E>(
    book: &Mutex<SubBook<K>>,
    undone: &Condvar,
    (stream, tid): (K, u64),
    mut call: impl FnMut(&Undo<K>) -> Result<(), E>,
    mut removed: impl FnMut(K),
) -> Result<(), E> {
    let u = {
        let mut b = lock(book, Rank::Subs);
        let Some(sub) = b
            .subs
            .iter_mut()
            .find(|s| !s.undoing && s.stream == stream && s.tid == tid)
        else {
            return Ok(());
        };
        claim(sub)
    };
    undo(book, undone, &u, false, &mut call, &mut removed)
}

/// Undo every entry matching `pred` (errors ignored), holding no lock of
/// the book across the calls. With `wait`, first waits until no matching
/// entry is being undone by another thread.
pub(crate) fn undo_where<K: Copy, E>(
    book: &Mutex<SubBook<K>>,
    undone: &Condvar,
    pred: impl Fn(&Sub<K>) -> bool,
    wait_for_others: bool,
    mut call: impl FnMut(&Undo<K>) -> Result<(), E>,
    mut removed: impl FnMut(K),
) {
    let wait_for_others = if mutant("subs-destroy-no-wait") {
        false
    } else {
        wait_for_others || mutant("subs-exit-waits")
    };
    let mine: Vec<Undo<K>> = {
        let mut b = lock(book, Rank::Subs);
        while wait_for_others && b.subs.iter().any(|s| s.undoing && pred(s)) {
            b = wait(b, undone);
        }
        b.subs
            .iter_mut()
            .filter(|s| !s.undoing && pred(s))
            .map(claim)
            .collect()
    };
    for u in &mine {
        let _ = undo(book, undone, u, true, &mut call, &mut removed);
    }
}

/// Whether the book is empty.
pub(crate) fn is_empty<K>(book: &Mutex<SubBook<K>>) -> bool {
    lock(book, Rank::Subs).subs.is_empty()
}

/// How many entries `tid` has (not counting those being undone).
pub(crate) fn count<K>(book: &Mutex<SubBook<K>>, tid: u64) -> usize {
    lock(book, Rank::Subs)
        .subs
        .iter()
        .filter(|s| s.tid == tid && !s.undoing)
        .count()
}
