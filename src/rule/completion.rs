//! Awaited completions: the service thread that sees work finish and wakes
//! the futures waiting for it (`crate::future`).
//!
//! A future that cannot finish at once registers a watch (a [`Probe`]: the
//! streams or events whose completion it waits for, or a deadline) with a
//! waker, in a [`WakeSlot`] (`rule::wake_slot`, model-checked). One thread
//! per process, started by the first registration, asks every watch whether
//! it is ready (the basement's watch, `ffi::completion::Watch`, queries its
//! handles: `aclrtStreamQuery`, `aclrtQueryEventStatus`, queries only, which
//! never take a device fault from a synchronisation that needs it), removes
//! the watches that completed and fires their slots, holding no lock then.
//! Between rounds it sleeps, shortly at first and longer while nothing
//! completes (from 20 µs up to 1 ms), and without watches it blocks: it
//! never spins, so it does not compete with the simulator's workers or an
//! executor for two cores.
//!
//! What the service never does: synchronise (the future does, once the
//! work is over: the same checked wait as the blocking form, which then
//! returns at once), touch memory, or ask a watch whose handle is gone: a
//! watch lives until it completes, until its future gives up interest
//! (drop), or until the basement forgets it ([`Service::forget`]: one of its
//! handles, or its context, is about to be destroyed, or the scope that
//! registered it ended): all under the watch lock that the queries are made
//! under. A slot whose future was dropped is never fired
//! (`WakeSlot::cancel`), so a waker is called at most once, and never after
//! its future gave up interest.
//!
//! Bookkeeping with no `unsafe` and no runtime call: the queries are the
//! probe's, in the basement.
#![deny(unsafe_code)]

use core::cell::Cell;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::task::Waker;
use std::time::{Duration, Instant};

use super::locks::{Rank, lock};
use super::wake_slot::{Wake, WakeSlot};

impl Wake for Waker {
    #[inline]
    fn wake(self) {
        Waker::wake(self);
    }

    #[inline]
    fn same(&self, other: &Self) -> bool {
        self.will_wake(other)
    }
}

/// What a future waits for, as the service sees it.
pub(crate) trait Probe: Sized + Send + 'static {
    /// The one service of this kind of watch.
    fn service() -> &'static Service<Self>;
    /// Whether the watch is complete now (asked on the service thread,
    /// under the watch lock).
    fn is_ready(&self, now: Instant) -> bool;
    /// The earliest time at which the watch completes by itself, if any.
    fn deadline(&self) -> Option<Instant>;
}

struct Entry<W> {
    id: u64,
    watch: W,
    slot: Arc<WakeSlot<Waker>>,
}

/// The watches not complete yet, and the thread that asks them.
pub(crate) struct Service<W> {
    /// The watches not complete yet (rank `Watches`: the queries, and the
    /// locks of an event target's predicate, the open-scope registry's, are
    /// taken under it; no user code runs under it).
    entries: Mutex<Vec<Entry<W>>>,
    changed: Condvar,
    /// Whether the thread is running (`false`: it could not be started;
    /// the futures then wait as the blocking forms do).
    started: OnceLock<bool>,
    next_id: AtomicU64,
    /// How many watches are registered (read without the lock by the
    /// destroy paths: 0 means there is nothing to forget).
    watching: AtomicUsize,
}

std::thread_local! {
    /// Set on the service thread, which calls wakers.
    static IN_SERVICE: Cell<bool> = const { Cell::new(false) };
}

fn on_service_thread() -> bool {
    IN_SERVICE.try_with(|c| c.get()).unwrap_or(false)
}

/// The pause after `round` rounds in which nothing completed.
fn pause(round: u32) -> Duration {
    const STEPS_US: [u64; 8] = [20, 20, 50, 50, 100, 200, 500, 1000];
    Duration::from_micros(STEPS_US[(round as usize).min(STEPS_US.len() - 1)])
}

impl<W: Probe> Service<W> {
    /// An empty service; its thread starts with the first registration.
    pub(crate) const fn new() -> Service<W> {
        Service {
            entries: Mutex::new(Vec::new()),
            changed: Condvar::new(),
            started: OnceLock::new(),
            next_id: AtomicU64::new(1),
            watching: AtomicUsize::new(0),
        }
    }

    /// Whether the thread runs, starting it on first use.
    fn start(&'static self) -> bool {
        *self.started.get_or_init(|| {
            std::thread::Builder::new()
                .name("aclrt-completions".into())
                .spawn(move || {
                    IN_SERVICE.with(|c| c.set(true));
                    self.serve();
                })
                .is_ok()
        })
    }

    fn serve(&self) -> ! {
        let mut round = 0u32;
        loop {
            let mut fired = Vec::new();
            {
                let mut entries = lock(&self.entries, Rank::Watches);
                while entries.is_empty() {
                    entries = entries.wait(&self.changed);
                    round = 0;
                }
                let now = Instant::now();
                entries.retain(|e| {
                    if e.watch.is_ready(now) {
                        fired.push(e.slot.clone());
                        false
                    } else {
                        true
                    }
                });
                self.watching.store(entries.len(), Ordering::Release);
                if fired.is_empty() && !entries.is_empty() {
                    let mut wait = pause(round);
                    if let Some(at) = entries.iter().filter_map(|e| e.watch.deadline()).min() {
                        wait = wait.min(at.saturating_duration_since(now));
                    }
                    round = round.saturating_add(1);
                    // A new watch (`changed`) ends the pause early.
                    let _ = entries.wait_timeout(&self.changed, wait);
                } else {
                    round = 0;
                }
            }
            // Wakers are the executors' code: called holding no lock.
            for slot in fired {
                slot.fire();
            }
        }
    }

    /// Forget the watches matching `gone`, whose futures were forgotten or
    /// dropped without their drop running to the end: their slots are
    /// cancelled, never fired.
    #[inline]
    pub(crate) fn forget(&self, gone: impl Fn(&W) -> bool) {
        // One load while no future is watched (the common case, on every
        // destroy path and at the end of every scope).
        if self.watching.load(Ordering::Acquire) != 0 {
            self.forget_watched(gone);
        }
    }

    #[cold]
    #[inline(never)]
    fn forget_watched(&self, gone: impl Fn(&W) -> bool) {
        if self.started.get() != Some(&true) {
            return;
        }
        let mut removed = Vec::new();
        {
            let mut entries = lock(&self.entries, Rank::Watches);
            let mut i = 0;
            while i < entries.len() {
                if gone(&entries[i].watch) {
                    removed.push(entries.swap_remove(i).slot);
                } else {
                    i += 1;
                }
            }
            self.watching.store(entries.len(), Ordering::Release);
        }
        let here = on_service_thread();
        for slot in removed {
            slot.cancel(here);
        }
    }

    /// How many watches match `f` (a test hook's).
    pub(crate) fn count(&self, f: impl Fn(&W) -> bool) -> usize {
        if self.started.get() != Some(&true) {
            return 0;
        }
        lock(&self.entries, Rank::Watches)
            .iter()
            .filter(|e| f(&e.watch))
            .count()
    }
}

/// A future's registered interest in a completion: its watch is in the
/// service until it completes, and dropping this gives the interest up
/// (the waker is then never called).
pub(crate) struct Interest<W: Probe> {
    id: u64,
    slot: Arc<WakeSlot<Waker>>,
    watch: core::marker::PhantomData<fn() -> W>,
}

impl<W: Probe> core::fmt::Debug for Interest<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Interest").field("id", &self.id).finish()
    }
}

impl<W: Probe> Interest<W> {
    /// Register `watch`, to wake `waker` when it completes; `None` if the
    /// service could not be started.
    pub(crate) fn register(watch: W, waker: &Waker) -> Option<Interest<W>> {
        let svc = W::service();
        if !svc.start() {
            return None;
        }
        let slot = WakeSlot::new();
        // Armed before the service can see it: its fire finds the waker.
        slot.arm(waker);
        let id = svc.next_id.fetch_add(1, Ordering::Relaxed);
        {
            let mut entries = lock(&svc.entries, Rank::Watches);
            entries.push(Entry {
                id,
                watch,
                slot: slot.clone(),
            });
            svc.watching.store(entries.len(), Ordering::Release);
        }
        svc.changed.notify_one();
        Some(Interest {
            id,
            slot,
            watch: core::marker::PhantomData,
        })
    }

    /// A later poll: `true` once the watch completed; otherwise `waker` is
    /// the one to wake. No runtime call.
    #[inline]
    pub(crate) fn poll(&self, waker: &Waker) -> bool {
        self.slot.arm(waker)
    }
}

impl<W: Probe> Drop for Interest<W> {
    fn drop(&mut self) {
        if !self.slot.fired() {
            // An interest exists only once the service started.
            let svc = W::service();
            let mut entries = lock(&svc.entries, Rank::Watches);
            entries.retain(|e| e.id != self.id);
            svc.watching.store(entries.len(), Ordering::Release);
        }
        self.slot.cancel(on_service_thread());
    }
}
