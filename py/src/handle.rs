//! Runtime handles that Python code can reach, owned and counted here: the
//! runtime, devices, contexts, streams and events of the Pythonic layer.
//!
//! A [`Handle`] holds one runtime handle (or device id) and the count of its
//! *uses* in flight (a call that passes it to the runtime, a blocking
//! `synchronize` that released the GIL included) and of its live *children*
//! (streams and events of a context, buffers allocated in it, contexts of a
//! device...). Every decision is made under the handle's mutex, which is
//! never held while Python code or the runtime runs:
//!
//! * a use (`Handle.use()`, or [`UseGuard`] from Rust) is taken only while
//!   the handle is open, and counted until it ends;
//! * a release (`Handle._begin_release`) is granted only while no use is
//!   in flight and no child lives, and closes the handle to new uses in the
//!   same step: a `close()` on one thread can never destroy a stream that a
//!   `synchronize()` on another thread is waiting for; it raises
//!   `AclUsageError` instead (a use cannot be waited for: a synchronize may
//!   wait on a callback for ever);
//! * a child is added only to an open parent and kept (the Pythonic node
//!   object itself, with its close order) until its release ends, so a
//!   parent cannot go while a child is being created in it;
//! * the deferred-release tree: a node released while children remain
//!   waits for them (`_wait_for_children`), and its release falls to
//!   exactly one caller, the waiter or the end of its last child (which
//!   finds it in `_parent_claimed`), decided in the handle core
//!   (`protocol::handle_core`) under its mutex.
#![deny(unsafe_code)]

use crate::errors::AclUsageError;
use crate::protocol::handle_core::{HandleCore, Refused, Release, State};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The serial of the next handle (never reused, unlike runtime handles).
static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The serial of the context handle this thread made current last.
    static BOUND: Cell<u64> = const { Cell::new(0) };
}

/// One runtime handle of the Pythonic layer (`acl._native.Handle`).
#[pyclass(module = "acl._native", name = "Handle", frozen)]
pub struct Handle {
    /// The counted state (`protocol::handle_core`); `on_idle` callables,
    /// the children's node objects.
    core: HandleCore<Py<PyAny>, Py<PyAny>>,
    serial: u64,
    parent: Option<Py<Handle>>,
    what: String,
    /// The end of this handle's release made the parent's release (waiting
    /// for its children) fall to its caller: taken once by
    /// `_parent_claimed`.
    parent_claim: AtomicBool,
    /// Awaited waits in flight (`crate::waiter`), among the uses.
    awaits: AtomicU64,
}

impl Handle {
    fn closed_error(&self, state: State) -> PyErr {
        AclUsageError::new_err(match state {
            State::Empty => format!("the {} is not created yet", self.what),
            _ => format!("{} used after it was released", self.what),
        })
    }

    /// Takes a use: the handle's value, open until [`Handle::end_use`].
    pub fn begin_use(&self) -> PyResult<u64> {
        self.core.begin_use().map_err(|s| self.closed_error(s))
    }

    /// Ends a use taken by [`Handle::begin_use`]; the last one runs a
    /// release that waited for it (errors are reported as unraisable).
    pub fn end_use(&self) {
        if let Some(cb) = self.core.end_use() {
            Python::attach(|py| {
                if let Err(e) = cb.call0(py) {
                    e.write_unraisable(py, None);
                }
            });
        }
    }

    /// Counts an awaited wait in flight (`up`), or its end.
    pub fn count_await(&self, up: bool) {
        if up {
            self.awaits.fetch_add(1, Ordering::AcqRel);
        } else {
            self.awaits.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Ends a use taken by [`Handle::begin_use`] without the GIL: a release
    /// that waited for it is handed back, for the caller to run attached.
    pub fn end_use_detached(&self) -> Option<Py<PyAny>> {
        self.core.end_use()
    }

    /// Adds child `obj` (close order `order`, key `key`, unique among the
    /// children); refused unless open.
    pub fn add_child(&self, order: u8, key: u64, obj: Py<PyAny>) -> PyResult<u64> {
        self.core
            .add_child(order, key, obj)
            .map_err(|(s, _obj)| self.closed_error(s))
    }

    /// Adds child `obj` as the only one (refused while another child lives,
    /// atomically with the count): a physical allocation's one mapping.
    pub fn add_sole_child(&self, order: u8, key: u64, obj: Py<PyAny>) -> PyResult<u64> {
        self.core
            .add_sole_child(order, key, obj)
            .map_err(|(s, _obj)| match s {
                Some(s) => self.closed_error(s),
                None => AclUsageError::new_err(format!(
                    "the {} is mapped already: an allocation is mapped once (unmap it first)",
                    self.what
                )),
            })
    }

    /// The release of child `key` ended (or its creation failed): `true`
    /// when this handle's release (waiting for its children) now falls to
    /// the caller. The child's object is dropped after the core's lock.
    pub fn remove_child(&self, key: u64) -> bool {
        let (obj, claim) = self.core.remove_child(key);
        drop(obj);
        claim
    }

    /// This handle's serial: never reused (unlike runtime handles); the
    /// work book's name of a stream or event.
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// The value, whatever the state (for a child that keeps it alive).
    pub fn raw(&self) -> u64 {
        self.core.value()
    }

    /// Makes this context handle current on the calling thread unless it
    /// is already, by this very handle: equal values are not enough, since
    /// a real runtime may give a new context the address of a destroyed one
    /// that is still current on this thread. The caller holds a use, or a
    /// child that keeps the context alive. Returns the runtime's ret.
    pub fn bind(&self) -> PyResult<i32> {
        if self.what != "context" {
            return Err(PyTypeError::new_err(format!(
                "a {} handle is not a context",
                self.what
            )));
        }
        let state = self.core.state();
        if matches!(state, State::Empty | State::Closed) {
            return Err(self.closed_error(state));
        }
        let value = self.core.value();
        Ok(self.bind_value(value))
    }

    /// The value of this context handle while open (an error otherwise),
    /// for a caller that holds the GIL and runs no Python code until it is
    /// done with the context (a release takes the GIL), so no use is
    /// counted; it binds with [`Handle::bind_value`].
    pub fn open_context(&self) -> PyResult<u64> {
        if self.what != "context" {
            self.bind()?; // the error
        }
        self.core.open_value().map_err(|s| self.closed_error(s))
    }

    /// [`Handle::bind`] of `value`, this handle's, read by a caller that
    /// holds a use (so no second look under the lock).
    pub fn bind_value(&self, value: u64) -> i32 {
        let (cur, ret) = crate::ffi::get_context();
        if ret == 0 && cur == value && BOUND.with(Cell::get) == self.serial {
            return 0;
        }
        let ret = crate::ffi::set_context(value);
        BOUND.with(|b| b.set(if ret == 0 { self.serial } else { 0 }));
        ret
    }
}

/// A use of a [`Handle`] from Rust, ended on drop.
pub struct UseGuard<'a> {
    handle: &'a Handle,
    /// The handle's value.
    pub value: u64,
}

impl<'a> UseGuard<'a> {
    /// Takes a use of `handle` (refused unless it is open).
    pub fn new(handle: &'a Handle) -> PyResult<Self> {
        let value = handle.begin_use()?;
        Ok(UseGuard { handle, value })
    }
}

impl UseGuard<'_> {
    /// The serial of the handle used.
    pub fn serial(&self) -> u64 {
        self.handle.serial
    }

    /// [`Handle::bind`] of the handle used.
    pub fn bind(&self) -> PyResult<i32> {
        if self.handle.what != "context" {
            return self.handle.bind(); // the error
        }
        Ok(self.handle.bind_value(self.value))
    }
}

impl Drop for UseGuard<'_> {
    fn drop(&mut self) {
        self.handle.end_use();
    }
}

fn refuse_copy() -> PyErr {
    PyTypeError::new_err(
        "cannot pickle or copy a runtime handle: it means nothing in another process, \
         and a copy would be a second owner",
    )
}

#[pymethods]
impl Handle {
    /// A handle named `what` (for messages), whose parent is `parent`; it
    /// is not its child until `_adopt`, and not usable until `_open`.
    #[new]
    #[pyo3(signature = (what, parent = None))]
    fn new(what: String, parent: Option<Bound<'_, Handle>>) -> Self {
        Handle {
            core: HandleCore::new(),
            parent: parent.map(Bound::unbind),
            serial: NEXT_SERIAL.fetch_add(1, Ordering::Relaxed),
            what,
            parent_claim: AtomicBool::new(false),
            awaits: AtomicU64::new(0),
        }
    }

    /// Makes node object `node` (this handle's owner, initialised) a child
    /// of the parent's handle, with close order `order`; refused unless the
    /// parent is open.
    fn _adopt(&self, node: Py<PyAny>, order: u8) -> PyResult<()> {
        crate::fork::check()?;
        match &self.parent {
            Some(p) => p.get().add_child(order, self.serial, node).map(|_| ()),
            None => Ok(()),
        }
    }

    /// The runtime object exists: `value` is its handle (or device id).
    fn _open(&self, value: u64) -> PyResult<()> {
        crate::fork::check()?;
        if !self.core.open(value) {
            return Err(AclUsageError::new_err(format!(
                "the {} handle was already opened",
                self.what
            )));
        }
        Ok(())
    }

    /// Creating the runtime object failed: the parent no longer counts it.
    fn _abandon(&self) {
        if self.core.abandon()
            && let Some(p) = &self.parent
            && p.get().remove_child(self.serial)
        {
            self.parent_claim.store(true, Ordering::Release);
        }
    }

    /// A use (a context manager whose `__enter__` gives the value): the
    /// handle cannot be released until it ends.
    #[pyo3(name = "use")]
    fn use_(slf: &Bound<'_, Self>) -> PyResult<Use> {
        crate::fork::check()?;
        slf.get().begin_use()?;
        Ok(Use {
            handle: slf.clone().unbind(),
            done: AtomicBool::new(false),
        })
    }

    /// The owner released it while children remain: no new uses or
    /// children (uses in flight go on). `True` when its release falls to
    /// the caller now (no child left); otherwise the end of the last child
    /// gets it (its `_parent_claimed`).
    fn _wait_for_children(&self) -> PyResult<bool> {
        crate::fork::check()?;
        Ok(self.core.wait_for_children())
    }

    /// True once the owner released it while children remained.
    #[getter]
    fn _waiting(&self) -> bool {
        self.core.waiting()
    }

    /// The children not yet released (their node objects), in close order.
    fn _kids(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        self.core.kids(|o| o.clone_ref(py))
    }

    /// The parent node object's handle, if any.
    #[getter]
    fn _parent(&self, py: Python<'_>) -> Option<Py<Handle>> {
        self.parent.as_ref().map(|p| p.clone_ref(py))
    }

    /// True, once, when the end of this handle's release (or its
    /// abandonment) made its parent's release fall to the caller.
    fn _parent_claimed(&self) -> bool {
        self.parent_claim.swap(false, Ordering::AcqRel)
    }

    /// For the cycle collector: the parent's handle and the children's
    /// node objects (a tree dropped without a release is collected; its
    /// runtime objects leak, as a `Memory`'s do).
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Some(p) = &self.parent {
            visit.call(p)?;
        }
        self.core.try_visit(|o| visit.call(o)).map(|_| ())
    }

    fn __clear__(&self) {
        drop(self.core.take_kids());
    }

    /// Grants the release to this caller and closes the handle to uses, in
    /// one step: refused while a use is in flight (on another thread) or a
    /// child lives. Returns the value; end with `_end_release`.
    ///
    /// A retired handle (no new uses) with uses in flight and `on_idle`
    /// given: `None`, and `on_idle()` is called when the last use ends (it
    /// asks again), so a release that its last child triggers is never lost.
    #[pyo3(signature = (on_idle = None))]
    fn _begin_release(&self, on_idle: Option<Py<PyAny>>) -> PyResult<Option<u64>> {
        crate::fork::check()?;
        match self.core.begin_release(on_idle) {
            Ok(Release::Granted(value)) => Ok(Some(value)),
            Ok(Release::Deferred) => Ok(None),
            Err(Refused::Released) => Err(AclUsageError::new_err(format!(
                "the {} is already released (or being released on another thread)",
                self.what
            ))),
            Err(Refused::Empty) => Err(self.closed_error(State::Empty)),
            Err(Refused::Uses(n)) => Err(AclUsageError::new_err(format!(
                "cannot release the {}: {} call(s) using it are in flight on other threads \
                 (a synchronize, a copy...); release it after they return",
                self.what, n
            ))),
            Err(Refused::Children(n)) => Err(AclUsageError::new_err(format!(
                "cannot release the {} before its {} live children",
                self.what, n
            ))),
        }
    }

    /// Ends a release granted by `_begin_release`: `ok` closes the handle
    /// (its parent no longer counts it); otherwise it is open again.
    /// When this made the parent's release (waiting for its children) fall
    /// to the caller, `_parent_claimed` says so (once).
    fn _end_release(&self, ok: bool) {
        if self.core.end_release(ok)
            && let Some(p) = &self.parent
            && p.get().remove_child(self.serial)
        {
            self.parent_claim.store(true, Ordering::Release);
        }
    }

    /// The serial (see [`Handle::serial`]).
    #[getter]
    fn _serial(&self) -> u64 {
        self.serial
    }

    /// [`Handle::bind`] for the Pythonic layer: the runtime's ret.
    fn _bind(&self) -> PyResult<i32> {
        crate::fork::check()?;
        self.bind()
    }

    /// The raw value (a handle, a device id), whatever the state.
    #[getter]
    fn value(&self) -> PyResult<u64> {
        crate::fork::check()?;
        Ok(self.raw())
    }

    /// True while usable.
    #[getter]
    fn open(&self) -> PyResult<bool> {
        crate::fork::check()?;
        Ok(self.core.state() == State::Open)
    }

    /// Uses in flight.
    #[getter]
    fn _uses(&self) -> PyResult<usize> {
        crate::fork::check()?;
        Ok(self.core.uses())
    }

    /// Awaited waits in flight (each also a use): they end on their own,
    /// once the work they wait for is done.
    #[getter]
    fn _awaits(&self) -> u64 {
        self.awaits.load(Ordering::Acquire)
    }

    /// Live children.
    #[getter]
    fn _children(&self) -> PyResult<usize> {
        crate::fork::check()?;
        Ok(self.core.children())
    }

    /// Refused: see the module docs.
    fn __reduce__(&self) -> PyResult<()> {
        Err(refuse_copy())
    }

    /// Refused: see the module docs.
    fn __reduce_ex__(&self, _protocol: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(refuse_copy())
    }

    /// Refused: see the module docs.
    fn __copy__(&self) -> PyResult<()> {
        Err(refuse_copy())
    }

    /// Refused: see the module docs.
    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(refuse_copy())
    }
}

impl Drop for Handle {
    /// A handle collected before its runtime object was created: its parent
    /// no longer counts it. (One collected while open leaks the runtime
    /// object, as a `Memory` does, and its parent keeps counting it: the
    /// Pythonic layer keeps every node in its parent until released.)
    fn drop(&mut self) {
        let empty = self.core.state() == State::Empty;
        if empty && let Some(p) = &self.parent {
            p.get().remove_child(self.serial);
        }
    }
}

/// A use of a [`Handle`] (`acl._native.Use`): `with handle.use() as h:`
/// gives the value; the use ends at the block's end, or when the object is
/// collected, whichever comes first.
#[pyclass(module = "acl._native", name = "Use", frozen)]
pub struct Use {
    handle: Py<Handle>,
    done: AtomicBool,
}

impl Use {
    fn end(&self) {
        if !self.done.swap(true, Ordering::AcqRel) {
            self.handle.get().end_use();
        }
    }
}

#[pymethods]
impl Use {
    fn __enter__(&self) -> u64 {
        self.handle.get().raw()
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyAny>) -> bool {
        self.end();
        false
    }
}

impl Drop for Use {
    fn drop(&mut self) {
        self.end();
    }
}
