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
//!   a sole child ([`HandleCore::add_sole_child`], a physical allocation's
//!   one mapping) only on an open handle without one, in the same step;
//! * a retired handle (closed to new uses) asked to release while uses are
//!   in flight keeps the caller's `on_idle`, which the end of the last use
//!   hands back exactly once (in the same critical section as the check that
//!   stores it, so the last use cannot end unseen in between).
//!
//! It is also a node of the deferred-release tree: its children are kept
//! here (each with its close order and the caller's object), and a handle
//! whose owner released it while children remain *waits* for them
//! ([`HandleCore::wait_for_children`]); the release then falls to exactly
//! one caller, the waiter itself (no child left) or the end of the last
//! child ([`HandleCore::remove_child`]), each deciding in the one critical
//! section that also marks it waiting or removes the child, so the two can
//! neither both miss it (a release lost for ever) nor both take it (a
//! double release).
//!
//! The payload `T` is what `on_idle` carries (a Python callable in the
//! library, a token in the models); `C` is what a child entry holds (the
//! child's Python object, a token in the models).
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

/// One child of a handle: its close order (lower first), its key (unique
/// among the children), and the caller's object.
struct Kid<C> {
    order: u8,
    key: u64,
    obj: C,
}

struct Inner<T, C> {
    state: State,
    value: u64,
    uses: usize,
    /// The children not yet released, in the order they came.
    kids: Vec<Kid<C>>,
    /// The owner released it while children remained: the release comes
    /// with the last of them.
    waiting: bool,
    /// The release of a waiting handle fell to a caller (once).
    claimed: bool,
    on_idle: Option<T>,
}

impl<T, C> Inner<T, C> {
    /// Whether the release of a waiting handle falls to this caller now:
    /// it waits, no child is left, and no caller took it before.
    fn claim(&mut self) -> bool {
        if self.waiting && self.kids.is_empty() && !self.claimed {
            self.claimed = true;
            true
        } else {
            false
        }
    }
}

/// The counted state of one handle.
pub struct HandleCore<T, C = ()> {
    inner: Mutex<Inner<T, C>>,
}

impl<T, C> Default for HandleCore<T, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T, C> HandleCore<T, C> {
    /// An empty handle (no runtime object yet).
    pub fn new() -> Self {
        HandleCore {
            inner: Mutex::new(Inner {
                state: State::Empty,
                value: 0,
                uses: 0,
                kids: Vec::new(),
                waiting: false,
                claimed: false,
                on_idle: None,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner<T, C>> {
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

    /// The value while open; otherwise the state. (Not a use: for a caller
    /// that holds what orders every release after it is done.)
    pub fn open_value(&self) -> Result<u64, State> {
        let g = self.lock();
        if g.state == State::Open {
            Ok(g.value)
        } else {
            Err(g.state)
        }
    }

    /// Uses in flight.
    pub fn uses(&self) -> usize {
        self.lock().uses
    }

    /// Children not yet released.
    pub fn children(&self) -> usize {
        self.lock().kids.len()
    }

    /// True once the owner released it while children remained.
    pub fn waiting(&self) -> bool {
        self.lock().waiting
    }

    /// The children not yet released, in close order (lower `order`
    /// first; equal orders in the order they came), as `f` copies them.
    pub fn kids(&self, mut f: impl FnMut(&C) -> C) -> Vec<C> {
        let g = self.lock();
        let mut idx: Vec<usize> = (0..g.kids.len()).collect();
        idx.sort_by_key(|&i| g.kids[i].order);
        idx.into_iter().map(|i| f(&g.kids[i].obj)).collect()
    }

    /// Visits the children without waiting for the lock (a collector's
    /// walk): `false`, nothing visited, when the lock is held.
    pub fn try_visit<E>(&self, mut f: impl FnMut(&C) -> Result<(), E>) -> Result<bool, E> {
        let Ok(g) = self.inner.try_lock() else {
            return Ok(false);
        };
        for k in &g.kids {
            f(&k.obj)?;
        }
        Ok(true)
    }

    /// Takes every child out (a collector breaking a cycle), for the
    /// caller to drop outside the lock.
    pub fn take_kids(&self) -> Vec<C> {
        std::mem::take(&mut self.lock().kids)
            .into_iter()
            .map(|k| k.obj)
            .collect()
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

    /// Adds child `obj` (close order `order`, unique `key`): the value;
    /// refused (the state, and `obj` back) unless open.
    pub fn add_child(&self, order: u8, key: u64, obj: C) -> Result<u64, (State, C)> {
        if mutant("handle-child-check-apart") {
            // The break: the check and the count in two critical sections.
            let g = self.lock();
            if g.state != State::Open {
                return Err((g.state, obj));
            }
            drop(g);
            let mut g = self.lock();
            g.kids.push(Kid { order, key, obj });
            return Ok(g.value);
        }
        let mut g = self.lock();
        if g.state != State::Open {
            return Err((g.state, obj));
        }
        g.kids.push(Kid { order, key, obj });
        Ok(g.value)
    }

    /// [`HandleCore::add_child`] for a handle that may have one child at a
    /// time (a physical allocation mapped once): refused with `None` while
    /// a child lives, in the same critical section as the count.
    pub fn add_sole_child(&self, order: u8, key: u64, obj: C) -> Result<u64, (Option<State>, C)> {
        if mutant("handle-sole-child-check-apart") {
            // The break: "no child yet" seen, the child added in a second
            // critical section (another may be added in between).
            let g = self.lock();
            if g.state != State::Open {
                return Err((Some(g.state), obj));
            }
            let empty = g.kids.is_empty();
            drop(g);
            if !empty {
                return Err((None, obj));
            }
            let mut g = self.lock();
            g.kids.push(Kid { order, key, obj });
            return Ok(g.value);
        }
        let mut g = self.lock();
        if g.state != State::Open {
            return Err((Some(g.state), obj));
        }
        if !g.kids.is_empty() {
            return Err((None, obj));
        }
        g.kids.push(Kid { order, key, obj });
        Ok(g.value)
    }

    /// The release of child `key` ended (or its creation failed): it is
    /// removed (and handed back, for the caller to drop outside the lock),
    /// with `true` when the release of this handle, waiting for its
    /// children, now falls to the caller.
    pub fn remove_child(&self, key: u64) -> (Option<C>, bool) {
        let mut g = self.lock();
        let kid = g
            .kids
            .iter()
            .position(|k| k.key == key)
            .map(|i| g.kids.remove(i).obj);
        if kid.is_none() {
            // Not a child (never added, or removed already): nothing changed.
            return (None, false);
        }
        if mutant("tree-remove-check-apart") {
            // The break: the removal and the claim in two critical
            // sections (the owner may wait in between and claim too).
            drop(g);
            g = self.lock();
            let claim = g.waiting && g.kids.is_empty();
            return (kid, claim);
        }
        let claim = g.claim();
        (kid, claim)
    }

    /// The owner released it while children remain (or none: then at
    /// once): no new uses or children; `true` when the release falls to
    /// the caller now (no child left), otherwise the end of the last child
    /// gets it ([`HandleCore::remove_child`]).
    pub fn wait_for_children(&self) -> bool {
        let mut g = self.lock();
        if g.state == State::Open {
            g.state = State::Retired;
        }
        if mutant("tree-wait-checked-before-marked") {
            // The break: the children looked at in one critical section,
            // the waiting mark set in another (the last child may go in
            // between, seeing no waiter: the release is lost).
            let empty = g.kids.is_empty();
            drop(g);
            g = self.lock();
            g.waiting = true;
            if empty && !g.claimed {
                g.claimed = true;
                return true;
            }
            return false;
        }
        g.waiting = true;
        g.claim()
    }

    /// Grants the release to this caller and closes the handle to uses and
    /// children in the same step; refused while a use is in flight or a
    /// child lives. A retired handle with uses in flight, no child and
    /// `on_idle` given: [`Release::Deferred`], and `on_idle` comes back from
    /// the end of the last use (whose owner asks again).
    pub fn begin_release(&self, on_idle: Option<T>) -> Result<Release, Refused> {
        let mut g = self.lock();
        if g.state == State::Retired && g.uses > 0 && g.kids.is_empty() {
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
        if !g.kids.is_empty() {
            return Err(Refused::Children(g.kids.len()));
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
