//! The protocol core of an awaited completion's wake-up (`completion`):
//! the future that waits, against the completion service that sees the
//! work finish.
//!
//! One slot per wait; three sides touch it, each under its lock:
//! * the future ([`WakeSlot::arm`], every poll until it fires): if the slot
//!   fired it says so; otherwise it stores (or replaces) the waker to call;
//! * the service ([`WakeSlot::fire`], at most once per slot): marks it
//!   fired and takes the waker out, unless the future gave up its interest;
//!   it then calls the waker under no lock (user code: the executor's),
//!   with the slot marked `waking` until the call returned;
//! * the future's drop ([`WakeSlot::cancel`]): marks the slot cancelled,
//!   takes the waker out, and waits until a call of it in progress has
//!   returned (unless that call is on the calling thread: an executor that
//!   drops the future from inside `wake`).
//!
//! A waker that panics is contained: its panic is dropped, holding no lock.
//!
//! So a waker is called at most once per slot, never after `cancel`
//! returned, and a waker stored by an `arm` that did not see the slot fired
//! is called by the `fire` that comes later (no lost wake-up: both sides
//! decide under the lock). No unsafe, no FFI.
#![deny(unsafe_code)]

use super::sync::{Arc, Condvar, Mutex, Rank, lock, mutant, user_code, wait};

/// What a slot calls: the library's `Waker`, a counting one in the models.
pub(crate) trait Wake: Clone {
    /// Wake the task (consumes this clone).
    fn wake(self);
    /// Whether `self` and `other` wake the same task (`Waker::will_wake`).
    fn same(&self, other: &Self) -> bool;
}

struct State<W> {
    waker: Option<W>,
    fired: bool,
    cancelled: bool,
    /// The service took the waker out and is calling it.
    waking: bool,
}

/// The meeting point of one awaited completion.
pub(crate) struct WakeSlot<W> {
    state: Mutex<State<W>>,
    woken: Condvar,
}

impl<W: Wake> WakeSlot<W> {
    /// An unfired slot with no waker yet.
    pub(crate) fn new() -> Arc<WakeSlot<W>> {
        Arc::new(WakeSlot {
            state: Mutex::new(State {
                waker: None,
                fired: false,
                cancelled: false,
                waking: false,
            }),
            woken: Condvar::new(),
        })
    }

    /// The future's poll: `true` if the slot fired (the completion it
    /// waits for happened); otherwise `waker` is the one the service calls
    /// when it fires.
    pub(crate) fn arm(&self, waker: &W) -> bool {
        let old = {
            let mut s = lock(&self.state, Rank::WakeSlot);
            if s.fired && !mutant("wake-arm-ignores-fired") {
                return true;
            }
            match &s.waker {
                Some(w) if w.same(waker) => None,
                _ => s.waker.replace(waker.clone()),
            }
        };
        // An executor's waker: dropped under no crate lock.
        user_code("the drop of a replaced waker");
        drop(old);
        false
    }

    /// The service saw the completion: wake the future, once. Nothing
    /// happens if the slot fired already or its future gave up interest.
    pub(crate) fn fire(&self) {
        let waker = {
            let mut s = lock(&self.state, Rank::WakeSlot);
            if s.fired || s.cancelled {
                return;
            }
            s.fired = true;
            let w = s.waker.take();
            s.waking = w.is_some();
            w
        };
        if let Some(w) = waker {
            user_code("a waker");
            // A waker that panics (an executor's bug) must not leave the
            // slot `waking` (its future's drop would wait for ever) nor end
            // the caller, the service thread: the panic is dropped.
            let panicked =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.wake())).err();
            lock(&self.state, Rank::WakeSlot).waking = false;
            self.woken.notify_all();
            user_code("the drop of a waker's panic");
            drop(panicked);
        }
    }

    /// The future gave up its interest (dropped, or done): no wake-up
    /// after this returns. `on_waking_thread`: the caller is the thread
    /// that may be calling the waker (the service thread; the waker's call
    /// dropped the future), which must not wait for itself.
    pub(crate) fn cancel(&self, on_waking_thread: bool) {
        let old = {
            let mut s = lock(&self.state, Rank::WakeSlot);
            s.cancelled = true;
            let old = s.waker.take();
            if !on_waking_thread && !mutant("wake-cancel-no-wait") {
                while s.waking {
                    s = wait(s, &self.woken);
                }
            }
            old
        };
        user_code("the drop of a waker given up");
        drop(old);
    }

    /// Whether the slot fired.
    pub(crate) fn fired(&self) -> bool {
        lock(&self.state, Rank::WakeSlot).fired
    }
}
