//! The protocol cores' only door to atomics, locks and threads (tokio's
//! pattern): `std`'s in the library; `loom`'s under `cfg(loom)` and
//! `shuttle`'s under `cfg(shuttle)`, which only the model crate (`models/`,
//! which compiles these same files) is ever built with. A protocol core
//! imports nothing concurrent from anywhere else, so the model checkers see
//! every access it makes.
//!
//! [`mutant`] names a deliberate break of a protocol (a dropped fence, a
//! missing re-check). In the library it is `false` at compile time and the
//! break does not exist in the code that runs; the model crate's mutant
//! tests switch one on and assert that the model then finds a failure, so
//! CI shows that each model bites.
#![deny(unsafe_code)]
#![allow(unused_imports)]

#[cfg(not(any(loom, shuttle)))]
pub(crate) use std::sync::{
    Arc, Condvar, Mutex, MutexGuard,
    atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering, fence},
};
#[cfg(not(any(loom, shuttle)))]
pub(crate) use std::thread;

#[cfg(loom)]
pub(crate) use loom::sync::{
    Arc, Condvar, Mutex, MutexGuard,
    atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering, fence},
};
#[cfg(loom)]
pub(crate) use loom::thread;

#[cfg(all(shuttle, not(loom)))]
pub(crate) use shuttle::sync::{
    Arc, Condvar, Mutex, MutexGuard,
    atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering, fence},
};
#[cfg(all(shuttle, not(loom)))]
pub(crate) use shuttle::thread;

/// Whether the deliberate break `name` is switched on: never in the
/// library (a constant `false`, so the break is compiled out).
#[cfg(not(any(loom, shuttle)))]
#[inline(always)]
pub(crate) const fn mutant(_name: &str) -> bool {
    false
}

/// Whether the deliberate break `name` is switched on ([`set_mutant`]) for
/// the model run on this OS thread (loom and shuttle run a model's threads
/// on the thread that called them).
#[cfg(any(loom, shuttle))]
pub(crate) fn mutant(name: &str) -> bool {
    MUTANT.with(|m| m.get() == Some(name))
}

#[cfg(any(loom, shuttle))]
std::thread_local! {
    static MUTANT: core::cell::Cell<Option<&'static str>> = const { core::cell::Cell::new(None) };
}

/// Switch the break `name` on (or all off, `None`) for this OS thread.
#[cfg(any(loom, shuttle))]
pub(crate) fn set_mutant(name: Option<&'static str>) {
    MUTANT.with(|m| m.set(name));
}

/// A pause in a wait loop: a millisecond's sleep in the library; under a
/// model checker, a yield (loom and shuttle then run another thread).
#[cfg(not(any(loom, shuttle)))]
pub(crate) fn pause() {
    std::thread::sleep(core::time::Duration::from_millis(1));
}

/// A pause in a wait loop: a yield to the model checker's scheduler.
#[cfg(any(loom, shuttle))]
pub(crate) fn pause() {
    thread::yield_now();
}

/// The library's lock discipline (`rule::locks`): the cores' locks are
/// taken with their rank in the crate's one lock order, and entering user
/// code is announced, so the debug-build checks see the cores too.
#[cfg(not(any(loom, shuttle)))]
pub(crate) use crate::rule::locks::{Held as Guard, Rank, lock, user_code};

/// Wait on `cv` with the lock `g` (released while waiting, held again on
/// return).
#[cfg(not(any(loom, shuttle)))]
pub(crate) fn wait<'a, T>(g: Guard<'a, T>, cv: &Condvar) -> Guard<'a, T> {
    g.wait(cv)
}

/// The ranks the cores name, for the model checkers (which check no order:
/// their threads share one OS thread, so there is no per-thread book of
/// held locks to check against).
#[cfg(any(loom, shuttle))]
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rank {
    ExcHandlers,
    Subs,
    Waits,
    SlotFn,
    SlotPanic,
    Faults,
    FaultWatch,
    Streams,
    WakeSlot,
    BlockPool,
}

/// A held lock.
#[cfg(any(loom, shuttle))]
pub(crate) type Guard<'a, T> = MutexGuard<'a, T>;

/// Lock `m` (its rank is the library's business), ignoring poison.
#[cfg(any(loom, shuttle))]
pub(crate) fn lock<T>(m: &Mutex<T>, rank: Rank) -> Guard<'_, T> {
    let _ = rank;
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Wait on `cv` with the lock `g`.
#[cfg(any(loom, shuttle))]
pub(crate) fn wait<'a, T>(g: Guard<'a, T>, cv: &Condvar) -> Guard<'a, T> {
    cv.wait(g).unwrap_or_else(|e| e.into_inner())
}

/// User code (`what`) is about to be entered on this thread (the models
/// check nothing here).
#[cfg(any(loom, shuttle))]
#[inline]
pub(crate) fn user_code(what: &'static str) {
    let _ = what;
}
