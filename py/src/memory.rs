//! Memory that Python code can see, owned, counted and released here (the
//! second file of the basement, beside [`crate::ffi`]).
//!
//! [`Memory`] owns one runtime allocation (`malloc` or `malloc_host`). The
//! Pythonic layer's `DeviceBuffer` and `HostBuffer` are Python subclasses of
//! it. Pinned host memory exports Python's buffer protocol: `memoryview`,
//! `np.asarray`, `np.frombuffer` take an *export* (a count kept here), and
//! the memory is freed only when no export is left. Every decision is made
//! under the object's mutex with the GIL held and no Python code running, so
//! a view taken on one thread and a release on another cannot interleave
//! (the check and the free are one step): a view of freed memory cannot be
//! made. A release asked while views live either refuses (`_free(False)`)
//! or is deferred (`_free(True, callback)`): the last released export then
//! frees the memory and calls the callback (which releases the parents that
//! waited for it).
//!
//! [`_copy`] is the Pythonic layer's copy (`ctx.copy`, `stream.copy`): both
//! sides are resolved here, a `Memory` by its state, any other object
//! through the buffer protocol (held for the duration of the call), and only
//! plain numeric element formats are accepted, so an `object` array can never
//! be written as raw bytes.
//!
//! Two kinds of device memory are not owned: a mapping of physical
//! allocations into a reserved range (`_map`, grown by `_grow`; released by
//! unmapping, and a child of its context, range and allocations, so none of
//! them is released while it lives) and a view of part of other device
//! memory (`_view`; it holds an export of that memory until it ends).
//!
//! Objects holding runtime resources refuse `pickle`, `copy.copy` and
//! `copy.deepcopy` (a second owner of one allocation, or an address that
//! means nothing in another process).
#![allow(unsafe_code)]

use crate::errors::AclUsageError;
use crate::ffi;
use crate::handle::{Handle, UseGuard};
use crate::protocol::aside::with_error_aside;
use crate::protocol::memory_core::{Free, MemoryCore, Refused, State};
use crate::protocol::work_book::{Forked, WorkBook};
use pyo3::exceptions::PyRuntimeError;
use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::ffi as pyffi;
use pyo3::prelude::*;
use std::ffi::{CStr, c_int};
use std::sync::LazyLock;

/// One runtime allocation that Python code can see (`acl._native.Memory`,
/// the base of `aclrt.DeviceBuffer` and `aclrt.HostBuffer`).
///
/// A `Memory` collected while still allocated (its owner never released it)
/// leaks the allocation instead of calling the runtime from a destructor;
/// the runtime's own release (device reset, finalize) reclaims it. The
/// Pythonic layer keeps every buffer in its context's children until it is
/// released, so that happens only to a `Memory` made by hand.
#[pyclass(module = "acl._native", name = "Memory", subclass, frozen)]
pub struct Memory {
    /// The counted state (`protocol::memory_core`): `on_release`
    /// callables, the context handle that counts it.
    core: MemoryCore<Py<PyAny>, Py<Handle>>,
    /// The work book's name of this memory (never reused).
    id: u64,
    /// Asynchronous calls queueing work that uses this memory, in flight
    /// (the GIL released around the runtime call, the use not booked yet):
    /// counted as busy, so no view or synchronous use begins meanwhile.
    /// Changed and read with the GIL held.
    queueing: std::sync::atomic::AtomicUsize,
    /// Its free made its context's release (waiting for its children) fall
    /// to the caller: taken once by `_parent_claimed`.
    parent_claim: std::sync::atomic::AtomicBool,
    /// The key of device memory imported from another process
    /// (`aclrtIpcMemImportByKey`): it is not owned, so its release is
    /// `aclrtIpcMemClose` of the key, never a free. Set once, by `_import`.
    ipc_key: std::sync::OnceLock<std::ffi::CString>,
    /// Device memory that is a mapping of physical allocations into a
    /// reserved range (`aclrtMapMem`): not owned either, so its release is
    /// `aclrtUnmapMem` of each piece. Set once, by `_map`.
    mapped: std::sync::OnceLock<Mapped>,
    /// The device memory this is a view of (`_view`): it holds an export
    /// of it (so that memory is not freed or unmapped while the view
    /// lives), ended by the view's release or collection.
    view_of: std::sync::OnceLock<Py<Memory>>,
    /// The view still holds its export of `view_of`.
    view_pin: std::sync::atomic::AtomicBool,
}

/// What a mapping keeps: the reserved range and the physical allocations
/// it maps (each counts it as a child, so neither can be released while it
/// lives), and the context to unmap in.
struct Mapped {
    range: Py<Handle>,
    ctx: Py<Handle>,
    /// `(address, allocation)` of each piece, in address order; a `grow`
    /// appends one. Changed under the memory's lock.
    pieces: std::sync::Mutex<Vec<(u64, Py<Handle>)>>,
    /// The handles (range, allocations) whose release, waiting for this
    /// mapping, fell to the caller of its unmap: taken by `_map_claimed`.
    claims: std::sync::Mutex<Vec<Py<Handle>>>,
}

impl Mapped {
    fn pieces(&self) -> std::sync::MutexGuard<'_, Vec<(u64, Py<Handle>)>> {
        self.pieces.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `ACL_RT_MEM_ACCESS_FLAGS_READWRITE` and `ACL_MEM_LOCATION_TYPE_DEVICE`:
/// the access a mapping gets on its own device.
const ACCESS_RW: u32 = 0x3;
const LOCATION_DEVICE: u32 = 1;

/// The close order of a buffer among its context's children.
const ORDER: u8 = 2;

/// A count in [`Memory`]'s `queueing`, for the duration of a queueing call.
struct Queueing<'py>(Vec<Bound<'py, Memory>>);

impl<'py> Queueing<'py> {
    fn new(mems: impl IntoIterator<Item = Bound<'py, Memory>>) -> Self {
        let mems: Vec<_> = mems.into_iter().collect();
        for m in &mems {
            m.get()
                .queueing
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        Queueing(mems)
    }
}

impl Drop for Queueing<'_> {
    fn drop(&mut self) {
        for m in &self.0 {
            m.get()
                .queueing
                .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
}

/// The id of the next [`Memory`].
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl Memory {
    /// The work book's name of this memory.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Its key among its context's children (apart from handle serials).
    fn key(&self) -> u64 {
        self.id | 1 << 63
    }

    /// Frees `ptr` (see [`free_now`]); a context's release that falls to
    /// this caller is kept for `_parent_claimed`.
    fn close_import(&self, key: &std::ffi::CStr, ctx: Option<Py<Handle>>) -> PyResult<Option<i32>> {
        let (ret, claim) = close_import(key, ctx, self.key());
        if claim {
            self.parent_claim
                .store(true, std::sync::atomic::Ordering::Release);
        }
        ret
    }

    /// Ends a view's export of the memory it views (once); the last
    /// export of a deferred release completes it.
    fn end_view(&self, py: Python<'_>) {
        if self
            .view_pin
            .swap(false, std::sync::atomic::Ordering::AcqRel)
            && let Some(parent) = self.view_of.get()
        {
            unpin(parent.bind(py));
        }
    }

    /// Unmaps every piece of mapping `m` (last first), in its context
    /// (made current); then the allocations, the range and the context no
    /// longer count it. The first failure's `ret` is returned (a piece the
    /// runtime refused to unmap keeps its allocation counted: it cannot be
    /// freed).
    fn unmap_now(
        &self,
        py: Python<'_>,
        m: &Mapped,
        ctx: Option<Py<Handle>>,
    ) -> PyResult<Option<i32>> {
        let key = self.key();
        let forked = crate::fork::check();
        let mut first = 0;
        let pieces = std::mem::take(&mut *m.pieces());
        let bound = if forked.is_ok() {
            ctx.as_ref().map_or(Ok(0), |c| c.get().bind()).unwrap_or(0)
        } else {
            0
        };
        let mut claims = Vec::new();
        for (va, phys) in pieces.into_iter().rev() {
            let ret = match (&forked, bound) {
                (Err(_), _) => 0,
                (Ok(()), 0) => crate::ffi_ext::unmap_mem(va),
                (Ok(()), b) => b,
            };
            if ret != 0 {
                if first == 0 {
                    first = ret;
                }
                continue;
            }
            if phys.get().remove_child(key) {
                claims.push(phys);
            }
        }
        if m.range.get().remove_child(key) {
            claims.insert(0, m.range.clone_ref(py));
        }
        m.claims
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(claims);
        if ctx.as_ref().is_some_and(|c| c.get().remove_child(key)) {
            self.parent_claim
                .store(true, std::sync::atomic::Ordering::Release);
        }
        forked?;
        Ok(Some(first))
    }

    fn free_now(&self, ptr: u64, host: bool, ctx: Option<Py<Handle>>) -> PyResult<Option<i32>> {
        let (ret, claim) = free_now(ptr, host, ctx, self.key());
        if claim {
            self.parent_claim
                .store(true, std::sync::atomic::Ordering::Release);
        }
        ret
    }

    /// Marks the memory as used (or no longer used) by queued work (the
    /// work book's setter, called under its lock).
    pub fn set_busy(&self, busy: bool) {
        self.core.set_busy(busy);
    }

    /// True while a call queueing work that uses the memory is in flight.
    fn queueing(&self) -> bool {
        self.queueing.load(std::sync::atomic::Ordering::SeqCst) > 0
    }
}

/// The Pythonic layer's record of queued work (see [`crate::book`]).
pub(crate) static BOOK: LazyLock<WorkBook<Py<Memory>>> = LazyLock::new(WorkBook::new);

/// The book's flag setter: a buffer is (no longer) used by queued work.
pub(crate) fn busy(m: &Py<Memory>, b: bool) {
    m.get().set_busy(b);
}

/// The error of a forked child.
pub(crate) fn forked(_: Forked) -> PyErr {
    PyRuntimeError::new_err(crate::fork::MESSAGE)
}

/// Books the uses of `bufs` by work the runtime just queued on the stream
/// of serial `stream` (the caller holds each buffer until this returns).
pub fn queued<'py>(
    stream: u64,
    bufs: impl IntoIterator<Item = Bound<'py, Memory>>,
) -> PyResult<()> {
    let bufs = bufs.into_iter().map(|b| (b.get().id(), b.unbind()));
    BOOK.queued(crate::fork::forked(), stream, bufs, busy)
        .map_err(forked)?;
    Ok(())
}

fn refuse_copy(obj: &Bound<'_, PyAny>) -> PyErr {
    let name = obj
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_owned());
    PyTypeError::new_err(format!(
        "cannot pickle or copy a {name}: it owns runtime memory of this process \
         (a copy would be a second owner, or an address another process never allocated); \
         copy its contents instead (to_numpy(), tobytes())"
    ))
}

#[pymethods]
impl Memory {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyAny>, _kwargs: Option<&Bound<'_, PyAny>>) -> Self {
        Memory {
            core: MemoryCore::new(),
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            queueing: std::sync::atomic::AtomicUsize::new(0),
            parent_claim: std::sync::atomic::AtomicBool::new(false),
            ipc_key: std::sync::OnceLock::new(),
            mapped: std::sync::OnceLock::new(),
            view_of: std::sync::OnceLock::new(),
            view_pin: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Makes this memory a view of `nbytes` at `offset` of device memory
    /// `parent` (open; busy or not), holding an export of it until this
    /// view is released or collected: the parent's free (or unmap) is
    /// refused meanwhile, or deferred to the view's end. Not a child of the
    /// context (its release calls nothing); `ctx` is the parent's context,
    /// for the copies that bind it.
    fn _view(
        slf: &Bound<'_, Self>,
        parent: Bound<'_, Memory>,
        offset: u64,
        nbytes: u64,
        ctx: Bound<'_, Handle>,
    ) -> PyResult<()> {
        crate::fork::check()?;
        let me = slf.get();
        let mut g = me.core.lock();
        if g.state != State::Empty || me.view_of.get().is_some() {
            return Err(AclUsageError::new_err("the memory was already allocated"));
        }
        if nbytes == 0 {
            return Err(PyValueError::new_err("a view needs a positive size"));
        }
        let (ptr, device) = parent.get().core.export(
            true,
            |_| Ok(()),
            |_| AclUsageError::new_err("a view of memory that was released"),
            |p| {
                if p.host {
                    return Err(AclUsageError::new_err(
                        "only device memory has views this way",
                    ));
                }
                match offset.checked_add(nbytes) {
                    Some(end) if end <= p.nbytes as u64 => Ok((p.ptr + offset, p.device)),
                    _ => Err(PyValueError::new_err(format!(
                        "{nbytes} bytes at offset {offset} do not fit {} bytes",
                        p.nbytes
                    ))),
                }
            },
        )?;
        let _ = me.view_of.set(parent.unbind());
        me.view_pin
            .store(true, std::sync::atomic::Ordering::Release);
        g.open(false, ptr, nbytes as usize, device, ctx.unbind());
        Ok(())
    }

    /// Imports the device memory another process exported under `key`
    /// (`aclrtIpcMemImportByKey` with `flags`) in context `ctx` (made
    /// current on the calling thread; it counts the memory as a child until
    /// closed). Its size is the runtime's (`aclrtMemGetAddressRange`), never
    /// the caller's. The release closes the import (`aclrtIpcMemClose`).
    /// Returns the runtime's `ret` (0: imported).
    fn _import(
        slf: &Bound<'_, Self>,
        key: &str,
        flags: u64,
        device: i32,
        ctx: Bound<'_, Handle>,
    ) -> PyResult<i32> {
        crate::fork::check()?;
        let key = std::ffi::CString::new(key)
            .map_err(|_| PyValueError::new_err("an IPC key has no NUL character"))?;
        let me = slf.get();
        let child = me.key();
        let mut g = me.core.lock();
        if g.state != State::Empty {
            return Err(AclUsageError::new_err("the memory was already allocated"));
        }
        ctx.get()
            .add_child(ORDER, child, slf.clone().into_any().unbind())?;
        let ret = ctx
            .get()
            .bind()
            .unwrap_or_else(|_| ffi::set_context(ctx.get().raw()));
        if ret != 0 {
            ctx.get().remove_child(child);
            return Ok(ret);
        }
        let (ptr, ret) = crate::ffi_ext::ipc_mem_import_by_key(&key, flags);
        if ret != 0 {
            ctx.get().remove_child(child);
            return Ok(ret);
        }
        let (base, size, ret) = crate::ffi_ext::mem_get_address_range(ptr);
        if ret != 0 || base != ptr || size == 0 {
            crate::ffi_ext::ipc_mem_close(&key);
            ctx.get().remove_child(child);
            return Ok(if ret != 0 { ret } else { 100000 }); // ACL_ERROR_INVALID_PARAM
        }
        let _ = me.ipc_key.set(key);
        g.open(false, ptr, size as usize, device, ctx.unbind());
        Ok(0)
    }

    /// Maps physical allocation `phys` (`nbytes`, a multiple of the
    /// granularity) at byte `offset` of reserved range `range`
    /// (`aclrtMapMem`) and gives the context's device read-write access
    /// (`aclrtMemSetAccess`), in context `ctx` (made current). The mapping
    /// is a child of the context, of the range and of the allocation (its
    /// only one: an allocation is mapped once), each refused unless open,
    /// so none of them can be released while it lives. Returns the
    /// runtime's `ret` (0: mapped).
    #[allow(clippy::too_many_arguments)]
    fn _map(
        slf: &Bound<'_, Self>,
        range: Bound<'_, Handle>,
        offset: u64,
        phys: Bound<'_, Handle>,
        nbytes: u64,
        device: i32,
        ctx: Bound<'_, Handle>,
    ) -> PyResult<i32> {
        crate::fork::check()?;
        let me = slf.get();
        let key = me.key();
        let obj = || slf.clone().into_any().unbind();
        let mut g = me.core.lock();
        if g.state != State::Empty || me.mapped.get().is_some() {
            return Err(AclUsageError::new_err("the memory was already allocated"));
        }
        ctx.get().add_child(ORDER, key, obj())?;
        if let Err(e) = range.get().add_child(0, key, obj()) {
            ctx.get().remove_child(key);
            return Err(e);
        }
        if let Err(e) = phys.get().add_sole_child(0, key, obj()) {
            range.get().remove_child(key);
            ctx.get().remove_child(key);
            return Err(e);
        }
        let undo = |ret: i32| {
            phys.get().remove_child(key);
            range.get().remove_child(key);
            ctx.get().remove_child(key);
            Ok(ret)
        };
        let ret = ctx
            .get()
            .bind()
            .unwrap_or_else(|_| ffi::set_context(ctx.get().raw()));
        if ret != 0 {
            return undo(ret);
        }
        let Some(va) = range.get().raw().checked_add(offset) else {
            return undo(100000); // ACL_ERROR_INVALID_PARAM
        };
        let ret = crate::ffi_ext::map_mem(va, nbytes, 0, phys.get().raw(), 0);
        if ret != 0 {
            return undo(ret);
        }
        let ret = crate::ffi_ext::mem_set_access(
            va,
            nbytes,
            &[(ACCESS_RW, device as u32, LOCATION_DEVICE)],
        );
        if ret != 0 {
            crate::ffi_ext::unmap_mem(va);
            return undo(ret);
        }
        let _ = me.mapped.set(Mapped {
            range: range.unbind(),
            ctx: ctx.clone().unbind(),
            pieces: std::sync::Mutex::new(vec![(va, phys.unbind())]),
            claims: std::sync::Mutex::new(Vec::new()),
        });
        g.open(false, va, nbytes as usize, device, ctx.unbind());
        Ok(0)
    }

    /// Grows a mapping in place: maps physical allocation `phys` (`nbytes`)
    /// right after its end, inside its range, with the same access; the
    /// memory's address stays, its size grows. Returns the runtime's `ret`
    /// (0: grown; otherwise nothing changed).
    fn _grow(slf: &Bound<'_, Self>, phys: Bound<'_, Handle>, nbytes: u64) -> PyResult<i32> {
        crate::fork::check()?;
        let me = slf.get();
        let Some(m) = me.mapped.get() else {
            return Err(AclUsageError::new_err("only a mapping grows"));
        };
        let key = me.key();
        let mut g = me.core.lock();
        if g.state != State::Open {
            return Err(AclUsageError::new_err(
                "the mapping was used after it was unmapped",
            ));
        }
        phys.get()
            .add_sole_child(0, key, slf.clone().into_any().unbind())?;
        let ctx = m.ctx.get();
        let ret = ctx.bind().unwrap_or_else(|_| ffi::set_context(ctx.raw()));
        let va = g.ptr + g.nbytes as u64;
        let ret = if ret != 0 {
            ret
        } else {
            crate::ffi_ext::map_mem(va, nbytes, 0, phys.get().raw(), 0)
        };
        if ret != 0 {
            phys.get().remove_child(key);
            return Ok(ret);
        }
        let device = g.device as u32;
        let ret =
            crate::ffi_ext::mem_set_access(va, nbytes, &[(ACCESS_RW, device, LOCATION_DEVICE)]);
        if ret != 0 {
            crate::ffi_ext::unmap_mem(va);
            phys.get().remove_child(key);
            return Ok(ret);
        }
        m.pieces().push((va, phys.unbind()));
        g.nbytes += nbytes as usize;
        Ok(0)
    }

    /// True for a mapping of physical allocations (not owned).
    #[getter]
    fn _mapped(&self) -> bool {
        self.mapped.get().is_some()
    }

    /// The handles (the range, allocations) whose release, waiting for
    /// this mapping, now falls to the caller (taken once).
    fn _map_claimed(&self, py: Python<'_>) -> Vec<Py<Handle>> {
        match self.mapped.get() {
            Some(m) => std::mem::take(&mut *m.claims.lock().unwrap_or_else(|e| e.into_inner()))
                .into_iter()
                .map(|h| h.clone_ref(py))
                .collect(),
            None => Vec::new(),
        }
    }

    /// True for memory imported from another process (not owned).
    #[getter]
    fn _imported(&self) -> bool {
        self.ipc_key.get().is_some()
    }

    /// Allocates `nbytes` (> 0) in context `ctx` (made current on the
    /// calling thread; it counts the memory as a child until freed): pinned
    /// host memory, zero-filled (`host`), or device memory with `policy`.
    /// Returns the runtime's `ret` (0: allocated).
    fn _alloc(
        slf: &Bound<'_, Self>,
        host: bool,
        nbytes: usize,
        policy: u32,
        device: i32,
        ctx: Bound<'_, Handle>,
    ) -> PyResult<i32> {
        crate::fork::check()?;
        let me = slf.get();
        let key = me.key();
        let mut g = me.core.lock();
        if g.state != State::Empty {
            return Err(AclUsageError::new_err("the memory was already allocated"));
        }
        ctx.get()
            .add_child(ORDER, key, slf.clone().into_any().unbind())?;
        let ret = ctx.get().bind().unwrap_or_else(|_| {
            // Unreachable: a handle that took a child is open.
            ffi::set_context(ctx.get().raw())
        });
        if ret != 0 {
            ctx.get().remove_child(key);
            return Ok(ret);
        }
        let size = nbytes as u64;
        let (ptr, ret) = if host {
            ffi::malloc_host(size)
        } else {
            ffi::malloc(size, policy)
        };
        if ret != 0 {
            ctx.get().remove_child(key);
            return Ok(ret);
        }
        if host {
            let ret = ffi::memset(ptr, size, 0, size);
            if ret != 0 {
                ffi::free_host(ptr);
                ctx.get().remove_child(key);
                return Ok(ret);
            }
        }
        g.open(host, ptr, nbytes, device, ctx.unbind());
        Ok(0)
    }

    /// Frees the memory (in its context, made current on the calling
    /// thread; refused while queued stream work uses it) unless exports live: then `None`, and with `defer` the free happens
    /// when the last export is released, followed by `on_release()`.
    /// `Some(ret)` once freed (`Some(0)` when there was nothing to free).
    #[pyo3(signature = (defer, on_release = None))]
    fn _free(
        &self,
        py: Python<'_>,
        defer: bool,
        on_release: Option<Py<PyAny>>,
    ) -> PyResult<Option<i32>> {
        crate::fork::check()?;
        match self.core.free(defer, on_release) {
            Free::Nothing => Ok(Some(0)),
            Free::Exported => Ok(None),
            Free::Busy => Err(AclUsageError::new_err(
                "cannot free the buffer: queued stream work still uses it; synchronize first",
            )),
            Free::Now { .. } if self.view_of.get().is_some() => {
                self.end_view(py);
                Ok(Some(0))
            }
            Free::Now { ptr, host, ctx } => match (self.ipc_key.get(), self.mapped.get()) {
                (Some(key), _) => self.close_import(key, ctx),
                (None, Some(m)) => self.unmap_now(py, m, ctx),
                (None, None) => self.free_now(ptr, host, ctx),
            },
        }
    }

    /// True, once, when this memory's free made its context's release
    /// (waiting for its children) fall to the caller.
    fn _parent_claimed(&self) -> bool {
        self.parent_claim
            .swap(false, std::sync::atomic::Ordering::AcqRel)
    }

    /// The address while allocated and not released, else 0.
    #[getter]
    fn _ptr(&self) -> PyResult<u64> {
        crate::fork::check()?;
        Ok(self.core.ptr())
    }

    /// The size in bytes.
    #[getter]
    fn nbytes(&self) -> PyResult<usize> {
        crate::fork::check()?;
        Ok(self.core.lock().nbytes)
    }

    /// The number of live buffer-protocol exports (numpy arrays, memoryviews).
    #[getter]
    fn _exports(&self) -> PyResult<usize> {
        crate::fork::check()?;
        Ok(self.core.exports())
    }

    /// True while a release waits for the last export.
    #[getter]
    fn _deferred(&self) -> PyResult<bool> {
        crate::fork::check()?;
        Ok(self.core.state() == State::Deferred)
    }

    /// `acl.rt.memset` (or `memset_async` on `stream`) of the first `count`
    /// bytes to `value`, in `ctx` (made current on the calling thread); the
    /// GIL is held from the state check to the call, so no release can come
    /// between. A synchronous memset of memory queued work uses is refused.
    #[pyo3(signature = (ctx, value, count, stream = None))]
    fn _memset(
        slf: &Bound<'_, Self>,
        ctx: Bound<'_, Handle>,
        value: i32,
        count: usize,
        stream: Option<Bound<'_, Handle>>,
    ) -> PyResult<i32> {
        crate::fork::check()?;
        let ctx = UseGuard::new(ctx.get())?;
        let stream_guard = stream
            .as_ref()
            .map(|s| UseGuard::new(s.get()))
            .transpose()?;
        let stream = stream_guard.as_ref().map(|s| s.value);
        // Held (as an export) until the call returned: no free meanwhile,
        // even with the GIL released around the queueing.
        let (ptr, nbytes) = slf.get().core.export(
            true,
            |_| Ok(()),
            |_| AclUsageError::new_err("the buffer was used after it was released"),
            |g| {
                if (g.busy || slf.get().queueing()) && stream.is_none() {
                    return Err(AclUsageError::new_err(
                        "the buffer is used by queued stream work; synchronize first",
                    ));
                }
                Ok((g.ptr, g.nbytes))
            },
        )?;
        let _pin = Pin(slf.clone());
        let _queueing = stream.map(|_| Queueing::new([slf.clone()]));
        if count > nbytes {
            return Err(PyValueError::new_err(format!(
                "memset: {count} bytes do not fit {nbytes}"
            )));
        }
        let ret = ctx.bind()?;
        if ret != 0 {
            return Ok(ret);
        }
        let (max, n) = (nbytes as u64, count as u64);
        let ret = match stream {
            None => ffi::memset(ptr, max, value, n),
            // Queueing may wait for the stream's queue: GIL released.
            Some(st) => {
                crate::gil::blocking(slf.py(), move || ffi::memset_async(ptr, max, value, n, st))
            }
        };
        if ret == 0
            && let Some(st) = &stream_guard
        {
            queued(st.serial(), [slf.clone()])?;
        }
        Ok(ret)
    }

    /// True while queued stream work uses the memory (the work book's flag).
    #[getter]
    fn _busy(&self) -> PyResult<bool> {
        crate::fork::check()?;
        Ok(self.core.lock().busy || self.queueing())
    }

    /// Refused: see the module docs.
    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<()> {
        Err(refuse_copy(slf.as_any()))
    }

    /// Refused: see the module docs.
    fn __reduce_ex__(slf: &Bound<'_, Self>, _protocol: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(refuse_copy(slf.as_any()))
    }

    /// Refused: see the module docs.
    fn __copy__(slf: &Bound<'_, Self>) -> PyResult<()> {
        Err(refuse_copy(slf.as_any()))
    }

    /// Refused: see the module docs.
    fn __deepcopy__(slf: &Bound<'_, Self>, _memo: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(refuse_copy(slf.as_any()))
    }

    /// For the cycle collector: the context's handle it keeps (a tree
    /// dropped without a release is collected; the allocation leaks).
    fn __traverse__(&self, visit: pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        if let Some(p) = self.view_of.get() {
            visit.call(p)?;
        }
        if let Some(m) = self.mapped.get() {
            visit.call(&m.range)?;
            visit.call(&m.ctx)?;
            if let Ok(pieces) = m.pieces.try_lock() {
                for (_, p) in pieces.iter() {
                    visit.call(p)?;
                }
            }
        }
        self.core.try_visit(|c| visit.call(c), |r| visit.call(r))
    }

    /// The buffer protocol: a writable 1-D view of unsigned bytes of pinned
    /// host memory that is open and not used by queued stream work.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyffi::Py_buffer,
        flags: c_int,
    ) -> PyResult<()> {
        crate::fork::check()?;
        let me = slf.get();
        me.core.export(
            false,
            |g| {
                if me.queueing() {
                    Err(PyBufferError::new_err(
                        "queued stream work still uses the pinned buffer: synchronize the stream \
                         (or an event recorded after the work) first",
                    ))
                } else if g.host {
                    Ok(())
                } else {
                    Err(PyBufferError::new_err(
                        "device memory cannot be viewed from the host: copy it (to_numpy(), ctx.copy)",
                    ))
                }
            },
            |r| match r {
                Refused::State(State::Empty) => {
                    PyBufferError::new_err("the buffer holds no memory")
                }
                Refused::State(_) => PyBufferError::new_err("the buffer was released"),
                Refused::Busy => PyBufferError::new_err(
                    "queued stream work still uses the pinned buffer: synchronize the stream \
                     (or an event recorded after the work) first",
                ),
            },
            |g| {
                let len = isize::try_from(g.nbytes)
                    .map_err(|_| PyValueError::new_err("the buffer is too large to view"))?;
                // SAFETY:
                // - `view` is the `Py_buffer` the interpreter passes to the
                //   getbuffer slot, writable, for this call (pyo3's trampoline);
                // - the object is `slf`, alive (we hold a reference; the view
                //   takes its own, which PyBuffer_FillInfo increments);
                // - `g.ptr` is an open allocation of `len` bytes of
                //   host-readable memory (state `Open`, `host`, checked by
                //   `export` under the lock held here); it stays allocated
                //   while the export lives, because `export` counts it in
                //   this same critical section, which keeps `_free` from
                //   freeing it until `__releasebuffer__`;
                // - readonly = 0: the application owns the memory for writing;
                // - the GIL is held (a pymethod).
                let r = unsafe {
                    pyffi::PyBuffer_FillInfo(
                        view,
                        slf.as_ptr(),
                        g.ptr as usize as *mut _,
                        len,
                        0,
                        flags,
                    )
                };
                if r != 0 {
                    return Err(PyErr::fetch(slf.py()));
                }
                Ok(())
            },
        )
    }

    /// The end of an export; the last one completes a deferred release.
    unsafe fn __releasebuffer__(slf: Bound<'_, Self>, _view: *mut pyffi::Py_buffer) {
        unpin(&slf);
    }
}

impl Drop for Memory {
    /// A view collected without a release ends its export of the memory it
    /// views (which may complete that memory's deferred release).
    fn drop(&mut self) {
        if self.view_pin.load(std::sync::atomic::Ordering::Acquire) {
            let _ = Python::try_attach(|py| self.end_view(py));
        }
    }
}

/// Frees `ptr` in `ctx` (made current), then the context drops child
/// `key`; with `true` when the context's release (waiting for its
/// children) now falls to the caller.
fn free_now(
    ptr: u64,
    host: bool,
    ctx: Option<Py<Handle>>,
    key: u64,
) -> (PyResult<Option<i32>>, bool) {
    // In a forked child the runtime cannot be called: the memory is left to
    // the process (it was the parent's).
    let forked = crate::fork::check();
    let ret = if forked.is_ok() {
        let ret = ctx.as_ref().map_or(Ok(0), |c| c.get().bind()).unwrap_or(0);
        if ret != 0 {
            ret
        } else {
            if host {
                ffi::free_host(ptr)
            } else {
                ffi::free(ptr)
            }
        }
    } else {
        0
    };
    let claim = ctx.as_ref().is_some_and(|c| c.get().remove_child(key));
    if let Err(e) = forked {
        return (Err(e), claim);
    }
    (Ok(Some(ret)), claim)
}

/// Closes imported memory (`aclrtIpcMemClose`) in its context, as
/// [`free_now`] frees owned memory; returns the result and whether the
/// caller now performs the context's waiting release.
fn close_import(
    key: &std::ffi::CStr,
    ctx: Option<Py<Handle>>,
    child: u64,
) -> (PyResult<Option<i32>>, bool) {
    let forked = crate::fork::check();
    let ret = if forked.is_ok() {
        let ret = ctx.as_ref().map_or(Ok(0), |c| c.get().bind()).unwrap_or(0);
        if ret != 0 {
            ret
        } else {
            crate::ffi_ext::ipc_mem_close(key)
        }
    } else {
        0
    };
    let claim = ctx.as_ref().is_some_and(|c| c.get().remove_child(child));
    if let Err(e) = forked {
        return (Err(e), claim);
    }
    (Ok(Some(ret)), claim)
}

/// Ends one export (a view, or a copy's hold); the last one completes a
/// deferred release (then calls its callback).
fn unpin(slf: &Bound<'_, Memory>) {
    let me = slf.get();
    if let Some(cb) = me.core.release_export() {
        let py = slf.py();
        // The end of an export may come from a deallocation while an
        // exception propagates (the last view dies with its frame): Python
        // code must not run with that exception set. It is set aside for
        // the release and put back after it.
        with_error_aside(
            || PyErr::take(py),
            |e| e.restore(py),
            || {
                if let Err(e) = cb.call0(py) {
                    e.write_unraisable(py, Some(slf.as_any()));
                }
            },
        );
    }
}

/// A copy's hold on a `Memory` side: counted as an export, so no release
/// (by Python code the copy itself runs: an `__index__`, a `__buffer__`)
/// frees it before the runtime call is over.
struct Pin<'py>(Bound<'py, Memory>);

impl Drop for Pin<'_> {
    fn drop(&mut self) {
        unpin(&self.0);
    }
}

/// An export of another object's buffer, released on drop.
struct Export<'py> {
    py: Python<'py>,
    view: Box<pyffi::Py_buffer>,
}

impl<'py> Export<'py> {
    fn get(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        let mut view = Box::new(pyffi::Py_buffer::new());
        // SAFETY: `obj` is a live object (borrowed for 'py, GIL held);
        // `view` is a fresh, boxed (so never moved while exported)
        // `Py_buffer` the call fills; PyBUF_FULL_RO asks for strides and
        // the format, which the checks below read.
        let r =
            unsafe { pyffi::PyObject_GetBuffer(obj.as_ptr(), &mut *view, pyffi::PyBUF_FULL_RO) };
        if r != 0 {
            return Err(PyErr::fetch(obj.py()));
        }
        Ok(Export { py: obj.py(), view })
    }

    fn ptr(&self) -> u64 {
        self.view.buf as usize as u64
    }

    fn len(&self) -> usize {
        usize::try_from(self.view.len).unwrap_or(0)
    }

    fn readonly(&self) -> bool {
        self.view.readonly != 0
    }

    fn c_contiguous(&self) -> bool {
        // SAFETY: `view` was filled by a successful PyObject_GetBuffer and
        // not released yet (released only in Drop); GIL held ('py).
        unsafe { pyffi::PyBuffer_IsContiguous(&*self.view, b'C' as _) != 0 }
    }

    /// The element format (`"B"` when the exporter gave none).
    fn format(&self) -> String {
        if self.view.format.is_null() {
            return "B".to_owned();
        }
        // SAFETY: a non-NULL format of a filled Py_buffer is a NUL-terminated
        // string the exporter keeps alive while the export lives.
        unsafe { CStr::from_ptr(self.view.format) }
            .to_string_lossy()
            .into_owned()
    }
}

impl Drop for Export<'_> {
    fn drop(&mut self) {
        let _ = self.py;
        // SAFETY: `view` was filled by a successful PyObject_GetBuffer and is
        // released exactly once, here; the GIL is held ('py lives).
        unsafe { pyffi::PyBuffer_Release(&mut *self.view) }
    }
}

/// True for the struct-module formats of plain numbers: bool, signed and
/// unsigned integers, float16/32/64 and long double, complex (`Z`), with an
/// optional byte-order prefix. Objects (`O`), strings, structured and
/// pointer formats are not plain numbers.
pub fn plain_numeric(format: &str) -> bool {
    let f = format.trim_start_matches(['@', '=', '<', '>', '!']);
    match f.strip_prefix('Z') {
        Some(parts) => matches!(parts, "e" | "f" | "d" | "g"),
        None => matches!(
            f,
            "?" | "b"
                | "B"
                | "h"
                | "H"
                | "i"
                | "I"
                | "l"
                | "L"
                | "q"
                | "Q"
                | "n"
                | "N"
                | "e"
                | "f"
                | "d"
                | "g"
        ),
    }
}

/// One side of a copy.
struct Side<'py> {
    ptr: u64,
    len: usize,
    /// 0 device, 1 pinned, 2 pageable.
    place: u8,
    memory: Option<Pin<'py>>,
    _export: Option<Export<'py>>,
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "object".to_owned())
}

/// One side of a copy: a `Memory` (held with an export when `pin`;
/// otherwise only read, for a caller that holds the GIL with no Python code
/// to run until the runtime call returned, so that nothing can free it), or
/// another object through the buffer protocol (held until dropped).
fn side<'py>(
    obj: &Bound<'py, PyAny>,
    device: i32,
    writable: bool,
    asynchronous: bool,
    pin: bool,
) -> PyResult<Side<'py>> {
    let what = if writable { "destination" } else { "source" };
    if let Ok(m) = obj.cast::<Memory>() {
        // Busy is checked by `fill`, after the device (the order of the
        // refusals before the cores).
        let refused = |r| match r {
            Refused::State(State::Empty) => {
                AclUsageError::new_err(format!("the {what} holds no memory"))
            }
            Refused::State(_) => {
                AclUsageError::new_err(format!("the {what} buffer was used after it was released"))
            }
            // Not given (`busy_ok`): `fill` checks it.
            Refused::Busy => AclUsageError::new_err(
                "a synchronous copy of a buffer that queued stream work still uses; synchronize first",
            ),
        };
        let fill = |g: &crate::protocol::memory_core::Inner<Py<PyAny>, Py<Handle>>| {
            if g.device != device {
                return Err(AclUsageError::new_err(
                    "a buffer of another device (no peer access in this layer)",
                ));
            }
            if (g.busy || m.get().queueing()) && !asynchronous {
                return Err(AclUsageError::new_err(
                    "a synchronous copy of a buffer that queued stream work still uses; synchronize first",
                ));
            }
            Ok((g.ptr, g.nbytes, if g.host { 1u8 } else { 0 }))
        };
        let (ptr, len, place) = if pin {
            m.get().core.export(true, |_| Ok(()), refused, fill)?
        } else {
            m.get().core.peek(true, |_| Ok(()), refused, fill)?
        };
        return Ok(Side {
            ptr,
            len,
            place,
            memory: pin.then(|| Pin(m.clone())),
            _export: None,
        });
    }
    if asynchronous {
        return Err(AclUsageError::new_err(format!(
            "asynchronous copies take runtime memory only (a pinned HostBuffer or a \
             DeviceBuffer), not {}",
            type_name(obj)
        )));
    }
    let export = Export::get(obj).map_err(|_| {
        PyTypeError::new_err(format!(
            "cannot copy {} {}: not runtime memory and no buffer protocol",
            if writable { "to" } else { "from" },
            type_name(obj)
        ))
    })?;
    let format = export.format();
    if !plain_numeric(&format) {
        return Err(PyTypeError::new_err(format!(
            "cannot copy {} a {} of element format {format:?}: only plain numeric data \
             (bool, integers, floats, complex) can be copied as bytes",
            if writable { "to" } else { "from" },
            type_name(obj)
        )));
    }
    if !export.c_contiguous() {
        return Err(AclUsageError::new_err(format!(
            "the {what} ({}) is not C-contiguous",
            type_name(obj)
        )));
    }
    if writable && export.readonly() {
        return Err(AclUsageError::new_err(format!(
            "the destination ({}) is read-only: copy into a bytearray, a writable numpy array or a buffer",
            type_name(obj)
        )));
    }
    Ok(Side {
        ptr: export.ptr(),
        len: export.len(),
        place: 2,
        memory: None,
        _export: Some(export),
    })
}

/// The memcpy kind of a copy into `dst` from `src` (0 device, 1 pinned,
/// 2 pageable) in `run_mode` (ACL_DEVICE = 0, ACL_HOST = 1); the Pythonic
/// layer's `kind_of` documents the table.
pub fn kind_of(dst: u8, src: u8, run_mode: u32) -> u32 {
    const H2H: u32 = 0;
    const H2D: u32 = 1;
    const D2H: u32 = 2;
    const D2D: u32 = 3;
    if run_mode == 0 {
        return if dst == 2 && src == 2 { H2H } else { D2D };
    }
    match (dst, src) {
        (0, 0) => D2D,
        (0, _) => H2D,
        (_, 0) => D2H,
        _ => H2H,
    }
}

/// `_kind_of(dst, src, run_mode) -> kind`: [`kind_of`] for Python (places
/// 0 device, 1 pinned, 2 pageable), the one table `aclrt.kind_of` reads.
#[pyfunction]
pub fn _kind_of(dst: u8, src: u8, run_mode: u32) -> PyResult<u32> {
    if dst > 2 || src > 2 {
        return Err(PyValueError::new_err(
            "a place is 0 (device), 1 (pinned) or 2 (pageable)",
        ));
    }
    Ok(kind_of(dst, src, run_mode))
}

/// The byte count asked (`None`: all of the source); runs its
/// `__index__`, the one Python code of a copy besides a `__buffer__`.
fn count_asked(nbytes: Option<&Bound<'_, PyAny>>) -> PyResult<Option<i128>> {
    let Some(n) = nbytes else { return Ok(None) };
    if n.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyTypeError::new_err(
            "copy: nbytes must be an integer, not bool",
        ));
    }
    // `__index__`: Python and numpy integers, not floats.
    // A KeyboardInterrupt (or SystemExit) raised by an `__index__` goes on
    // as it is.
    let v: i128 = n.extract().map_err(|e: PyErr| {
        if !e.is_instance_of::<pyo3::exceptions::PyException>(n.py()) {
            return e;
        }
        PyTypeError::new_err(format!(
            "copy: nbytes must be an integer, not {}",
            type_name(n)
        ))
    })?;
    Ok(Some(v))
}

/// The byte count of a copy from a source of `limit` bytes.
fn count(asked: Option<i128>, limit: usize) -> PyResult<usize> {
    let Some(v) = asked else { return Ok(limit) };
    if v < 0 {
        return Err(PyValueError::new_err(format!(
            "copy: nbytes must be non-negative, not {v}"
        )));
    }
    if v > limit as i128 {
        return Err(PyValueError::new_err(format!(
            "copy: {v} bytes do not fit {limit}"
        )));
    }
    Ok(v as usize)
}

/// `_copy(ctx, device, run_mode, dst, src, nbytes=None, stream=None) -> ret`:
/// the Pythonic layer's copy. Makes `ctx` current on the calling thread,
/// resolves both sides (see the module docs), and calls `acl.rt.memcpy`, or
/// `memcpy_async` on `stream` (runtime memory only; the GIL is released
/// around the queueing, which may wait for a full queue; the use of both
/// sides is then booked in the work book, while they are still held). A
/// zero-byte copy does nothing. Both sides are held (an export, or a
/// `Memory`'s hold) from the checks to the end, so no release can happen
/// between the checks and the call.
#[pyfunction]
#[pyo3(signature = (ctx, device, run_mode, dst, src, nbytes = None, stream = None))]
#[allow(clippy::too_many_arguments)] // the layer's whole request, one call
pub fn _copy(
    ctx: &Bound<'_, Handle>,
    device: i32,
    run_mode: u32,
    dst: &Bound<'_, PyAny>,
    src: &Bound<'_, PyAny>,
    nbytes: Option<&Bound<'_, PyAny>>,
    stream: Option<&Bound<'_, Handle>>,
) -> PyResult<i32> {
    crate::fork::check()?;
    // A synchronous copy between two `Memory`s of all of the source runs no
    // Python code (no `__index__`, no `__buffer__`) and holds the GIL until
    // the runtime call returned: nothing can release the context or free a
    // side meanwhile (a release takes the GIL), so they are read, not held.
    // Any other copy holds them: uses of the context and the stream, and
    // pins of its `Memory` sides, until the runtime call returned, so that
    // Python code it runs (an `__index__`, a `__buffer__`) cannot release
    // any of them, nor another thread while the GIL is released around an
    // asynchronous copy's queueing.
    let asynchronous = stream.is_some();
    let is_memory = |o: &Bound<'_, PyAny>| o.cast::<Memory>().is_ok();
    let pin = asynchronous || nbytes.is_some() || !is_memory(dst) || !is_memory(src);
    let ctx_h = ctx.get();
    let (ctx, ctx_value) = if pin {
        let g = UseGuard::new(ctx_h)?;
        let v = g.value;
        (Some(g), v)
    } else {
        (None, ctx_h.open_context()?)
    };
    let stream = stream.map(|s| UseGuard::new(s.get())).transpose()?;
    let d = side(dst, device, true, asynchronous, pin)?;
    let s = side(src, device, false, asynchronous, pin)?;
    let asked = count_asked(nbytes)?;
    let n = count(asked, s.len)?;
    if n > d.len {
        return Err(PyValueError::new_err(format!(
            "copy: {n} bytes do not fit the {}-byte destination",
            d.len
        )));
    }
    let kind = kind_of(d.place, s.place, run_mode);
    if asynchronous && kind == 0 {
        return Err(AclUsageError::new_err(
            "an asynchronous copy between two pinned buffers is a host-to-host copy, which \
             the runtime does not queue in host run mode: use ctx.copy (synchronous)",
        ));
    }
    let ret = match &ctx {
        Some(c) => c.bind()?,
        None => ctx_h.bind_value(ctx_value),
    };
    if ret != 0 {
        return Ok(ret);
    }
    if n == 0 {
        return Ok(0);
    }
    let ret = match &stream {
        None => ffi::memcpy(d.ptr, d.len as u64, s.ptr, n as u64, kind),
        Some(st) => {
            // The queueing may wait (a full stream queue) for a callback that
            // needs the GIL: released around the call; both sides stay held,
            // and count as busy from now on (booked after the call).
            let sides = [&d.memory, &s.memory].into_iter().flatten();
            let _queueing = Queueing::new(sides.map(|m| m.0.clone()));
            let (dp, dl, sp, v) = (d.ptr, d.len as u64, s.ptr, st.value);
            crate::gil::blocking(dst.py(), move || {
                ffi::memcpy_async(dp, dl, sp, n as u64, kind, v)
            })
        }
    };
    if ret == 0
        && let Some(st) = &stream
    {
        // Booked while both sides are still held (`Pin`): no free between
        // the runtime's acceptance and the record of the use.
        let sides = [&d.memory, &s.memory].into_iter().flatten();
        queued(st.serial(), sides.map(|m| m.0.clone()))?;
    }
    Ok(ret)
}

/// `_copy_or_raise(check, ctx, device, run_mode, dst, src, nbytes=None)`:
/// [`_copy`] (synchronous) that returns `None`, or calls
/// `check(ret, "acl.rt.memcpy")` (which raises) when the runtime refused.
/// The Pythonic layer binds its first four arguments once per context
/// (`functools.partial`), so `ctx.copy(dst, src)` runs no Python code on
/// its way here.
#[pyfunction]
#[pyo3(signature = (check, ctx, device, run_mode, dst, src, nbytes = None))]
#[allow(clippy::too_many_arguments)] // `_copy`'s request and the error hook
pub fn _copy_or_raise(
    check: &Bound<'_, PyAny>,
    ctx: &Bound<'_, Handle>,
    device: i32,
    run_mode: u32,
    dst: &Bound<'_, PyAny>,
    src: &Bound<'_, PyAny>,
    nbytes: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let ret = _copy(ctx, device, run_mode, dst, src, nbytes, None)?;
    if ret != 0 {
        check.call1((ret, "acl.rt.memcpy"))?;
    }
    Ok(())
}
