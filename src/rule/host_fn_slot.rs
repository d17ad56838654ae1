//! The protocol core of a host function's slot (`host_fn`, model-checked):
//! the runtime's callback thread runs the function at most
//! once, its owner settles the slot once the stream is idle (or gone), and
//! no borrow the function holds ends while it runs.
//!
//! Two sides race for the function, under its lock:
//! * the runner ([`HostFnSlot::begin_run`], from the trampoline the runtime
//!   calls) takes it and stores `RUNNING` while holding the lock; after the
//!   call it stores a panic, if any, and then `DONE` with release ordering
//!   ([`HostFnSlot::end_run`]): its very last access to the slot;
//! * the owner ([`HostFnSlot::settle`]) takes it too: if it got the
//!   function, the runner finds nothing and never calls it, and the owner
//!   drops it (after releasing the lock: user `Drop` runs under no lock);
//!   if the runner got it first, the owner waits until it reads `DONE`
//!   (acquire: everything the function did happens before the owner goes
//!   on), then takes the panic.
//!
//! So the function runs at most once, never after `settle` returned, a
//! panic it raised is returned by `settle`, and `settle` says whether it
//! never ran (lost work, reported as `WorkAborted` by the caller). No unsafe, no FFI: the pointer
//! the runtime carries is the library's business (`host_fn::trampoline`).
#![deny(unsafe_code)]

use super::sync::{Arc, AtomicU8, Mutex, Ordering, Rank, lock, mutant, pause, user_code};

const PENDING: u8 = 0;
const RUNNING: u8 = 1;
const DONE: u8 = 2;

/// A host function `F` queued on a stream, with room for its panic `P`.
pub(crate) struct HostFnSlot<F, P> {
    /// Taken by the runner when it runs, or by the owner once the stream is
    /// idle if it never ran (a device fault or an abort skipped it).
    f: Mutex<Option<F>>,
    panic: Mutex<Option<P>>,
    /// `PENDING`, `RUNNING` (set by the runner while it holds `f`'s lock, as
    /// it takes `f`), `DONE` (its very last access to the slot).
    state: AtomicU8,
}

impl<F, P> HostFnSlot<F, P> {
    /// A slot holding `f`, not run yet.
    pub(crate) fn new(f: F) -> Arc<HostFnSlot<F, P>> {
        Arc::new(HostFnSlot {
            f: Mutex::new(Some(f)),
            panic: Mutex::new(None),
            state: AtomicU8::new(PENDING),
        })
    }

    /// The runner takes the function (`None`: the owner settled the slot
    /// first, it must not run). If it got one, it calls it, then
    /// [`end_run`](Self::end_run).
    pub(crate) fn begin_run(&self) -> Option<F> {
        let mut f = lock(&self.f, Rank::SlotFn);
        let taken = f.take();
        if taken.is_some() {
            self.state.store(RUNNING, Ordering::Release);
        }
        taken
    }

    /// The runner is done with the slot, the function it took returned or
    /// panicked (`panic`): the panic is stored, then `DONE`, its last access;
    /// its owner may free the slot from then on.
    pub(crate) fn end_run(&self, panic: Option<P>) {
        if mutant("hostfn-done-before-panic") {
            self.state.store(DONE, Ordering::Release);
            if let Some(p) = panic {
                *lock(&self.panic, Rank::SlotPanic) = Some(p);
            }
            return;
        }
        if let Some(p) = panic {
            *lock(&self.panic, Rank::SlotPanic) = Some(p);
        }
        let order = if mutant("hostfn-done-relaxed") {
            Ordering::Relaxed
        } else {
            Ordering::Release
        };
        self.state.store(DONE, order);
    }

    /// Drop the function if it never ran, wait for it if it is still
    /// running, and take its panic, if any; also says whether it never ran
    /// (an abort discarded it, or a fault skipped it). Call once the stream
    /// it was queued on is idle, or gone: a runtime torn down under a
    /// running host function no longer waits for it, so this does.
    pub(crate) fn settle(&self) -> (Option<P>, bool) {
        let never_ran = lock(&self.f, Rank::SlotFn).take();
        if never_ran.is_none() && !mutant("hostfn-settle-no-wait") {
            // It was taken, so the runner set RUNNING under that lock.
            while self.state.load(Ordering::Acquire) != DONE {
                pause();
            }
        }
        let lost = never_ran.is_some();
        if lost {
            // A user closure: dropped holding no crate lock.
            user_code("the drop of a host function that never ran");
        }
        drop(never_ran);
        (lock(&self.panic, Rank::SlotPanic).take(), lost)
    }
}
