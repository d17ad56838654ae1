//! Awaited completions: the service thread that sees work finish and wakes
//! the futures waiting for it (`crate::future`).
//!
//! A future that cannot finish at once registers a [`Watch`] (the streams
//! or events whose completion it waits for, or a deadline) with a waker, in
//! a [`WakeSlot`] (`protocol::wake_slot`, model-checked). One thread per
//! process, started by the first registration, queries every watched handle
//! (`aclrtStreamQuery`, `aclrtQueryEventStatus`: queries only, which never
//! take a device fault from a synchronisation that needs it), removes the
//! watches that completed and fires their slots, holding no lock then.
//! Between rounds it sleeps, shortly at first and longer while nothing
//! completes (from 20 µs up to 1 ms), and without watches it blocks: it
//! never spins, so it does not compete with the simulator's workers or an
//! executor for two cores.
//!
//! What the service never does: synchronise (the future does, once the
//! work is over: the same checked wait as the blocking form, which then
//! returns at once), touch memory, or query a handle that is gone: a watch
//! lives until it completes, until its future gives up interest (drop), or
//! until one of its handles (or its context) is destroyed
//! ([`handle_gone`], called by the destroy paths before the runtime call)
//! or the scope that registered it ends ([`scope_done`]): all under the
//! watch lock that the queries are made under. A slot whose future was
//! dropped is never fired (`WakeSlot::cancel`), so a waker is called at
//! most once, and never after its future gave up interest.
//!
//! Bookkeeping with no `unsafe`: the queries go through the safe wrappers
//! of `ffi`.
#![deny(unsafe_code)]

use core::cell::Cell;
use core::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::task::Waker;
use std::time::{Duration, Instant};

use super::Raw;
use super::locks::{Rank, lock};
use super::protocol::wake_slot::{Wake, WakeSlot};

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

/// What a watch waits for.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target {
    /// The stream is idle (`aclrtStreamQuery`).
    Stream(Raw),
    /// The event's record completed (`aclrtQueryEventStatus`), or the
    /// predicate (the caller's: `scope::record_discarded`) says an
    /// escalation discarded it (it never will).
    Event(Raw, fn(Raw) -> bool),
    /// The event completed, or its stream is idle (an abort discarded the
    /// record with the rest of the stream's work).
    EventOrStream(Raw, Raw),
    /// The time has come.
    Deadline(Instant),
}

impl Target {
    fn names(&self, handle: Raw) -> bool {
        match *self {
            Target::Stream(s) | Target::Event(s, _) => s == handle,
            Target::EventOrStream(e, s) => e == handle || s == handle,
            Target::Deadline(_) => false,
        }
    }
}

/// What a future waits for: every target complete.
#[derive(Debug)]
pub(crate) struct Watch {
    /// The context made current on the service thread for the queries.
    ctx: Option<Raw>,
    /// The scope that registered it (0: none).
    scope: u64,
    targets: Vec<Target>,
}

impl Watch {
    /// A watch of `targets`, queried with `ctx` current, registered by the
    /// scope `scope` (0: outside scopes).
    pub(crate) fn new(ctx: Option<Raw>, scope: u64, targets: Vec<Target>) -> Watch {
        Watch {
            ctx,
            scope,
            targets,
        }
    }

    /// Whether every target is complete now (runtime queries, made with
    /// the watch's context current; a query that fails counts as complete:
    /// the future's checked wait then judges the work, so a query here
    /// enters nothing in the failure rule, whatever it answers).
    pub(crate) fn is_ready(&self, now: Instant) -> bool {
        if let Some(ctx) = self.ctx {
            if super::make_current(ctx).is_err() {
                return true;
            }
        }
        self.targets.iter().all(|t| match *t {
            Target::Stream(s) => super::stream_query(s).unwrap_or(true),
            Target::Event(e, discarded) => match super::event_is_complete(e) {
                Ok(true) | Err(_) => true,
                Ok(false) => discarded(e),
            },
            Target::EventOrStream(e, s) => {
                super::event_is_complete(e).unwrap_or(true)
                    || super::stream_query(s).unwrap_or(true)
            }
            Target::Deadline(at) => now >= at,
        })
    }

    fn deadline(&self) -> Option<Instant> {
        self.targets
            .iter()
            .filter_map(|t| match *t {
                Target::Deadline(at) => Some(at),
                _ => None,
            })
            .min()
    }

    fn names(&self, handle: Raw) -> bool {
        self.ctx == Some(handle) || self.targets.iter().any(|t| t.names(handle))
    }
}

struct Entry {
    id: u64,
    watch: Watch,
    slot: Arc<WakeSlot<Waker>>,
}

struct Service {
    /// The watches not complete yet (rank `Watches`: the queries, and the
    /// locks of an event target's predicate, the open-scope registry's, are
    /// taken under it; no user code runs under it).
    entries: Mutex<Vec<Entry>>,
    changed: Condvar,
}

static SERVICE: OnceLock<Option<Service>> = OnceLock::new();
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
/// How many watches are registered (read without the lock by the destroy
/// paths: 0 means there is nothing to forget).
static WATCHING: AtomicUsize = AtomicUsize::new(0);

std::thread_local! {
    /// Set on the service thread, which calls wakers.
    static IN_SERVICE: Cell<bool> = const { Cell::new(false) };
}

fn on_service_thread() -> bool {
    IN_SERVICE.try_with(|c| c.get()).unwrap_or(false)
}

/// The service, started on first use; `None` if its thread could not be
/// started (the futures then wait as the blocking forms do).
fn service() -> Option<&'static Service> {
    SERVICE
        .get_or_init(|| {
            let started = std::thread::Builder::new()
                .name("aclrt-completions".into())
                .spawn(|| {
                    IN_SERVICE.with(|c| c.set(true));
                    // The OnceLock is being initialised by the spawner:
                    // wait for it.
                    let svc = loop {
                        if let Some(Some(svc)) = SERVICE.get() {
                            break svc;
                        }
                        std::thread::sleep(Duration::from_micros(50));
                    };
                    serve(svc);
                });
            started.ok().map(|_| Service {
                entries: Mutex::new(Vec::new()),
                changed: Condvar::new(),
            })
        })
        .as_ref()
}

/// The pause after `round` rounds in which nothing completed.
fn pause(round: u32) -> Duration {
    const STEPS_US: [u64; 8] = [20, 20, 50, 50, 100, 200, 500, 1000];
    Duration::from_micros(STEPS_US[(round as usize).min(STEPS_US.len() - 1)])
}

fn serve(svc: &'static Service) -> ! {
    let mut round = 0u32;
    loop {
        let mut fired = Vec::new();
        {
            let mut entries = lock(&svc.entries, Rank::Watches);
            while entries.is_empty() {
                entries = entries.wait(&svc.changed);
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
            WATCHING.store(entries.len(), Ordering::Release);
            if fired.is_empty() && !entries.is_empty() {
                let mut wait = pause(round);
                if let Some(at) = entries.iter().filter_map(|e| e.watch.deadline()).min() {
                    wait = wait.min(at.saturating_duration_since(now));
                }
                round = round.saturating_add(1);
                // A new watch (`changed`) ends the pause early.
                let _ = entries.wait_timeout(&svc.changed, wait);
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

/// A future's registered interest in a completion: its watch is in the
/// service until it completes, and dropping this gives the interest up
/// (the waker is then never called).
pub(crate) struct Interest {
    id: u64,
    slot: Arc<WakeSlot<Waker>>,
}

impl core::fmt::Debug for Interest {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Interest").field("id", &self.id).finish()
    }
}

impl Interest {
    /// Register `watch`, to wake `waker` when it completes; `None` if the
    /// service could not be started.
    pub(crate) fn register(watch: Watch, waker: &Waker) -> Option<Interest> {
        let svc = service()?;
        let slot = WakeSlot::new();
        // Armed before the service can see it: its fire finds the waker.
        slot.arm(waker);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        {
            let mut entries = lock(&svc.entries, Rank::Watches);
            entries.push(Entry {
                id,
                watch,
                slot: slot.clone(),
            });
            WATCHING.store(entries.len(), Ordering::Release);
        }
        svc.changed.notify_one();
        Some(Interest { id, slot })
    }

    /// A later poll: `true` once the watch completed; otherwise `waker` is
    /// the one to wake. No runtime call.
    #[inline]
    pub(crate) fn poll(&self, waker: &Waker) -> bool {
        self.slot.arm(waker)
    }
}

impl Drop for Interest {
    fn drop(&mut self) {
        if !self.slot.fired() {
            if let Some(Some(svc)) = SERVICE.get() {
                let mut entries = lock(&svc.entries, Rank::Watches);
                entries.retain(|e| e.id != self.id);
                WATCHING.store(entries.len(), Ordering::Release);
            }
        }
        self.slot.cancel(on_service_thread());
    }
}

/// Forget the watches matching `gone`, whose futures were forgotten or
/// dropped without their drop running to the end: their slots are
/// cancelled, never fired.
#[cold]
#[inline(never)]
fn forget(gone: impl Fn(&Watch) -> bool) {
    if WATCHING.load(Ordering::Acquire) == 0 {
        return;
    }
    let Some(Some(svc)) = SERVICE.get() else {
        return;
    };
    let mut removed = Vec::new();
    {
        let mut entries = lock(&svc.entries, Rank::Watches);
        let mut i = 0;
        while i < entries.len() {
            if gone(&entries[i].watch) {
                removed.push(entries.swap_remove(i).slot);
            } else {
                i += 1;
            }
        }
        WATCHING.store(entries.len(), Ordering::Release);
    }
    let here = on_service_thread();
    for slot in removed {
        slot.cancel(here);
    }
}

/// `handle` (a stream, an event or a context) is about to be destroyed:
/// the service no longer queries it. Only a forgotten future can still
/// have a watch on it (a live one borrows its owner).
#[inline]
pub(crate) fn handle_gone(handle: Raw) {
    // One load while no future is watched (the common case).
    if WATCHING.load(Ordering::Acquire) != 0 {
        forget(|w| w.names(handle));
    }
}

/// How many watches name `handle` (a test hook's).
pub(crate) fn watches_naming(handle: Raw) -> usize {
    match SERVICE.get() {
        Some(Some(svc)) => lock(&svc.entries, Rank::Watches)
            .iter()
            .filter(|e| e.watch.names(handle))
            .count(),
        _ => 0,
    }
}

/// Every watch that names a handle (the runtime is being finalised: no
/// handle stays valid); a watch of a deadline only stays.
pub(crate) fn all_gone() {
    forget(|w| w.ctx.is_some() || w.targets.iter().any(|t| !matches!(t, Target::Deadline(_))));
}

/// The body of scope `scope` returned: the watches its futures left (they
/// were forgotten) are given up before its end synchronises and releases
/// what they name.
pub(crate) fn scope_done(scope: u64) {
    if scope != 0 {
        forget(|w| w.scope == scope);
    }
}

/// Calls [`scope_done`] when dropped (at the end of a scope's body, also
/// on a panic).
pub(crate) struct ScopeDone(pub(crate) u64);

impl Drop for ScopeDone {
    #[inline]
    fn drop(&mut self) {
        // One load while no future is watched (the common case).
        if WATCHING.load(Ordering::Acquire) != 0 {
            scope_done(self.0);
        }
    }
}
