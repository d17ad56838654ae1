//! The protocol core of a runtime handle of the Python face
//! (`acl._native.Handle`): its state, its count of *uses* in flight and of
//! live *children*, and a release deferred to the end of the last use.
//! Every decision is one critical section of the handle's mutex, which is
//! never held while Python code or the runtime runs:
//!
//! * a use ([`HandleCore::begin_use`]) is taken only while the handle is
//!   open, and counted until [`HandleCore::end_use`];
//! * a release ([`HandleCore::begin_release`]) is granted only while no use
//!   is in flight and no child lives, and closes the handle to new uses and
//!   children *in the same step*, so a use or a child can never begin on a
//!   handle whose release was granted;
//! * a child ([`HandleCore::add_child`]) is counted only on an open handle;
//! * a retired handle (closed to new uses) asked to release while uses are
//!   in flight keeps the caller's `on_idle`, which the end of the last use
//!   hands back exactly once (in the same critical section as the check that
//!   stores it, so the last use cannot end unseen in between).
//!
//! The payload `T` is what `on_idle` carries (a Python callable in the
//! library, a token in the models).
#![deny(unsafe_code)]

use super::sync::{Mutex, MutexGuard, mutant};

/// The life of a handle.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum State {
    /// Created (its parent counts it), the runtime object not yet.
    Empty,
    /// Usable.
    Open,
    /// Closed to new uses (its owner released it while children finish);
    /// the release itself comes later.
    Retired,
    /// Being released (granted to one caller).
    Releasing,
    /// Released.
    Closed,
}

/// Why a release was refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Refused {
    /// Not created yet.
    Empty,
    /// Released, or being released by another caller.
    Released,
    /// This many uses are in flight.
    Uses(usize),
    /// This many children live.
    Children(usize),
}

/// A release asked of [`HandleCore::begin_release`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Release {
    /// Granted to this caller: the value; end with
    /// [`HandleCore::end_release`].
    Granted(u64),
    /// Deferred: the `on_idle` given comes back from the end of the last use.
    Deferred,
}

struct Inner<T> {
    state: State,
    value: u64,
    uses: usize,
    children: usize,
    on_idle: Option<T>,
}

/// The counted state of one handle.
pub struct HandleCore<T> {
    inner: Mutex<Inner<T>>,
}

impl<T> Default for HandleCore<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> HandleCore<T> {
    /// An empty handle (no runtime object yet).
    pub fn new() -> Self {
        HandleCore {
            inner: Mutex::new(Inner {
                state: State::Empty,
                value: 0,
                uses: 0,
                children: 0,
                on_idle: None,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner<T>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The state now.
    pub fn state(&self) -> State {
        self.lock().state
    }

    /// The value, whatever the state.
    pub fn value(&self) -> u64 {
        self.lock().value
    }

    /// Uses in flight.
    pub fn uses(&self) -> usize {
        self.lock().uses
    }

    /// Live children.
    pub fn children(&self) -> usize {
        self.lock().children
    }

    /// The runtime object exists: `value` is its handle. `false` (nothing
    /// changed) unless the handle was empty.
    pub fn open(&self, value: u64) -> bool {
        let mut g = self.lock();
        if g.state != State::Empty {
            return false;
        }
        g.state = State::Open;
        g.value = value;
        true
    }

    /// Creating the runtime object failed: closed; `true` if it was empty
    /// (its parent must stop counting it).
    pub fn abandon(&self) -> bool {
        let mut g = self.lock();
        if g.state != State::Empty {
            return false;
        }
        g.state = State::Closed;
        true
    }

    /// Takes a use: the value, counted until [`HandleCore::end_use`];
    /// refused (the state) unless open.
    pub fn begin_use(&self) -> Result<u64, State> {
        let mut g = self.lock();
        if g.state != State::Open {
            return Err(g.state);
        }
        g.uses += 1;
        Ok(g.value)
    }

    /// Ends a use; the last one hands back a deferred release's `on_idle`
    /// (once).
    pub fn end_use(&self) -> Option<T> {
        let mut g = self.lock();
        g.uses = g.uses.saturating_sub(1);
        if g.uses == 0 { g.on_idle.take() } else { None }
    }

    /// Counts a new child: the value; refused (the state) unless open.
    pub fn add_child(&self) -> Result<u64, State> {
        if mutant("handle-child-check-apart") {
            // The break: the check and the count in two critical sections.
            let g = self.lock();
            if g.state != State::Open {
                return Err(g.state);
            }
            drop(g);
            let mut g = self.lock();
            g.children += 1;
            return Ok(g.value);
        }
        let mut g = self.lock();
        if g.state != State::Open {
            return Err(g.state);
        }
        g.children += 1;
        Ok(g.value)
    }

    /// A child's release ended (or its creation failed).
    pub fn remove_child(&self) {
        let mut g = self.lock();
        g.children = g.children.saturating_sub(1);
    }

    /// No new uses (the owner released it; the release comes with its last
    /// child). Uses in flight go on.
    pub fn retire(&self) {
        let mut g = self.lock();
        if g.state == State::Open {
            g.state = State::Retired;
        }
    }

    /// Grants the release to this caller and closes the handle to uses and
    /// children in the same step; refused while a use is in flight or a
    /// child lives. A retired handle with uses in flight, no child and
    /// `on_idle` given: [`Release::Deferred`], and `on_idle` comes back from
    /// the end of the last use (whose owner asks again).
    pub fn begin_release(&self, on_idle: Option<T>) -> Result<Release, Refused> {
        let mut g = self.lock();
        if g.state == State::Retired && g.uses > 0 && g.children == 0 {
            if let Some(cb) = on_idle {
                if mutant("handle-idle-check-apart") {
                    // The break: the check and the store in two critical
                    // sections (the last use may end in between, unseen).
                    drop(g);
                    g = self.lock();
                }
                g.on_idle = Some(cb);
                return Ok(Release::Deferred);
            }
        }
        match g.state {
            State::Open | State::Retired => {}
            State::Releasing | State::Closed => return Err(Refused::Released),
            State::Empty => return Err(Refused::Empty),
        }
        if g.uses > 0 {
            return Err(Refused::Uses(g.uses));
        }
        if g.children > 0 {
            return Err(Refused::Children(g.children));
        }
        if mutant("handle-grant-not-closing") {
            // The break: the grant checked, the closing in a second
            // critical section (a use or a child may begin in between).
            drop(g);
            g = self.lock();
        }
        g.state = State::Releasing;
        Ok(Release::Granted(g.value))
    }

    /// Ends a release granted by [`HandleCore::begin_release`]: `ok` closes
    /// the handle and returns `true` (its parent must stop counting it);
    /// otherwise it is open again.
    pub fn end_release(&self, ok: bool) -> bool {
        let mut g = self.lock();
        if g.state != State::Releasing {
            return false;
        }
        if ok {
            g.state = State::Closed;
            true
        } else {
            g.state = State::Open;
            false
        }
    }
}
