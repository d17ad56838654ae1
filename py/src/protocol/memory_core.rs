//! The protocol core of runtime memory that Python code can see
//! (`acl._native.Memory`): its state, its count of buffer-protocol
//! *exports* (views, and a copy's hold), whether queued work uses it, and a
//! release deferred to the end of the last export. Every decision is one
//! critical section of the object's mutex:
//!
//! * an export ([`MemoryCore::export`]) is taken only while the memory is
//!   open (and, unless asked otherwise, not used by queued work), checked
//!   and counted in one step;
//! * a free ([`MemoryCore::free`]) is granted only with no export live and
//!   no queued work, and closes the memory in the same step, so an export
//!   can never begin on freed memory and the memory is freed once;
//! * a free asked with exports live is refused, or deferred: the state and
//!   the `on_release` are set in the step that saw the exports, and the end
//!   of the last export ([`MemoryCore::release_export`]) hands `on_release`
//!   back exactly once (its owner then frees).
//!
//! `R` is what `on_release` carries, `C` the context the memory was
//! allocated in (Python objects in the library, tokens in the models).
#![deny(unsafe_code)]

use super::sync::{Mutex, MutexGuard, mutant};

/// The life of a memory.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum State {
    /// Created, nothing allocated yet.
    Empty,
    /// Allocated and usable.
    Open,
    /// Released by its owner while exports live: freed after the last one.
    Deferred,
    /// Freed.
    Closed,
}

/// Why an export was refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Refused {
    /// Not allocated (the state), or released.
    State(State),
    /// Queued stream work uses it.
    Busy,
}

/// The answer of [`MemoryCore::free`].
#[derive(Debug, PartialEq, Eq)]
pub enum Free<C> {
    /// Nothing to free (never allocated, or already freed).
    Nothing,
    /// Exports live: refused, or deferred (as asked).
    Exported,
    /// Queued stream work uses it: refused.
    Busy,
    /// Closed: free `ptr` now (in `ctx`), once.
    Now {
        /// The address.
        ptr: u64,
        /// Pinned host memory (else device memory).
        host: bool,
        /// The context it was allocated in.
        ctx: Option<C>,
    },
}

/// The fields of a memory, seen under its lock.
pub struct Inner<R, C> {
    /// The state.
    pub state: State,
    /// Pinned host memory (else device memory).
    pub host: bool,
    /// The address.
    pub ptr: u64,
    /// The size.
    pub nbytes: usize,
    /// The device.
    pub device: i32,
    /// Live exports.
    pub exports: usize,
    /// Queued stream work uses the memory.
    pub busy: bool,
    on_release: Option<R>,
    ctx: Option<C>,
}

impl<R, C> Inner<R, C> {
    /// The allocation exists: open, no export, not busy, counted by `ctx`.
    pub fn open(&mut self, host: bool, ptr: u64, nbytes: usize, device: i32, ctx: C) {
        *self = Inner {
            state: State::Open,
            host,
            ptr,
            nbytes,
            device,
            exports: 0,
            busy: false,
            on_release: None,
            ctx: Some(ctx),
        };
    }
}

/// The counted state of one memory.
pub struct MemoryCore<R, C> {
    inner: Mutex<Inner<R, C>>,
}

impl<R, C> Default for MemoryCore<R, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R, C> MemoryCore<R, C> {
    /// An empty memory (nothing allocated).
    pub fn new() -> Self {
        MemoryCore {
            inner: Mutex::new(Inner {
                state: State::Empty,
                host: false,
                ptr: 0,
                nbytes: 0,
                device: -1,
                exports: 0,
                busy: false,
                on_release: None,
                ctx: None,
            }),
        }
    }

    /// The fields, locked (for the allocation and the plain fields; the
    /// protocol's decisions are the methods below).
    pub fn lock(&self) -> MutexGuard<'_, Inner<R, C>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Visits the context it keeps (and the `on_release` of a deferred
    /// release) without waiting for the lock (a collector's walk): nothing
    /// when the lock is held.
    pub fn try_visit<E>(
        &self,
        mut ctx: impl FnMut(&C) -> Result<(), E>,
        mut on_release: impl FnMut(&R) -> Result<(), E>,
    ) -> Result<(), E> {
        let Ok(g) = self.inner.try_lock() else {
            return Ok(());
        };
        if let Some(c) = &g.ctx {
            ctx(c)?;
        }
        if let Some(r) = &g.on_release {
            on_release(r)?;
        }
        Ok(())
    }

    /// Takes an export, in one critical section: `pre` (the caller's first
    /// checks), then the protocol's (open; not busy unless `busy_ok`; a
    /// refusal goes through `refused`), then `fill` (the caller's last
    /// checks and the view); counted only if all passed.
    pub fn export<T, E>(
        &self,
        busy_ok: bool,
        pre: impl FnOnce(&Inner<R, C>) -> Result<(), E>,
        refused: impl FnOnce(Refused) -> E,
        fill: impl FnOnce(&Inner<R, C>) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut g = self.lock();
        pre(&g)?;
        if g.state != State::Open {
            return Err(refused(Refused::State(g.state)));
        }
        if g.busy && !busy_ok {
            return Err(refused(Refused::Busy));
        }
        let out = fill(&g)?;
        if mutant("memory-export-check-apart") {
            // The break: the check and the count in two critical sections.
            drop(g);
            g = self.lock();
        }
        g.exports += 1;
        Ok(out)
    }

    /// [`MemoryCore::export`]'s checks and `fill`, without the count: for
    /// a caller that holds what orders every free after it (the library:
    /// the GIL, held with no Python code run until it is done with the
    /// memory), so that no free can come before it is done.
    pub fn peek<T, E>(
        &self,
        busy_ok: bool,
        pre: impl FnOnce(&Inner<R, C>) -> Result<(), E>,
        refused: impl FnOnce(Refused) -> E,
        fill: impl FnOnce(&Inner<R, C>) -> Result<T, E>,
    ) -> Result<T, E> {
        let g = self.lock();
        pre(&g)?;
        if g.state != State::Open {
            return Err(refused(Refused::State(g.state)));
        }
        if g.busy && !busy_ok {
            return Err(refused(Refused::Busy));
        }
        fill(&g)
    }

    /// Ends an export; the last one of a deferred release hands back its
    /// `on_release` (once).
    pub fn release_export(&self) -> Option<R> {
        let mut g = self.lock();
        g.exports = g.exports.saturating_sub(1);
        if g.exports == 0 && g.state == State::Deferred {
            g.on_release.take()
        } else {
            None
        }
    }

    /// Frees, if no export lives and no queued work uses the memory: closed
    /// in this step ([`Free::Now`], once). With exports live and `defer`,
    /// the release is deferred: `on_release` comes back from the end of the
    /// last export.
    pub fn free(&self, defer: bool, on_release: Option<R>) -> Free<C> {
        let mut g = self.lock();
        match g.state {
            State::Empty | State::Closed => return Free::Nothing,
            State::Open | State::Deferred => {}
        }
        if g.exports > 0 {
            if defer {
                if mutant("memory-defer-check-apart") {
                    // The break: the exports seen, the deferral set in a
                    // second critical section (the last export may end in
                    // between, unseen).
                    drop(g);
                    g = self.lock();
                }
                g.state = State::Deferred;
                g.on_release = on_release;
            }
            return Free::Exported;
        }
        if g.busy {
            return Free::Busy;
        }
        if mutant("memory-free-check-apart") {
            // The break: the exports checked, the closing in a second
            // critical section (an export may begin in between).
            drop(g);
            g = self.lock();
        }
        if mutant("memory-free-not-closing") {
            // The break: granted but not closed (a second free is granted
            // too).
            return Free::Now {
                ptr: g.ptr,
                host: g.host,
                ctx: None,
            };
        }
        g.state = State::Closed;
        g.on_release = None;
        Free::Now {
            ptr: std::mem::take(&mut g.ptr),
            host: g.host,
            ctx: g.ctx.take(),
        }
    }

    /// The address while open, else 0.
    pub fn ptr(&self) -> u64 {
        let g = self.lock();
        if g.state == State::Open { g.ptr } else { 0 }
    }

    /// The state now.
    pub fn state(&self) -> State {
        self.lock().state
    }

    /// Live exports.
    pub fn exports(&self) -> usize {
        self.lock().exports
    }

    /// Marks the memory as used (or no longer used) by queued work.
    pub fn set_busy(&self, busy: bool) {
        self.lock().busy = busy;
    }
}
