//! The unsafe primitives under the runtime (with [`raw`](crate::raw), the C
//! entry points, the only modules of the crate that contain `unsafe` code).
//!
//! Everything that touches memory through a raw pointer lives here, behind a
//! small set of types whose safe methods cannot be misused:
//!
//! * [`HeapBlock`]: the backing store of one runtime allocation (memory of
//!   the simulator's own address range, [`arena`], page aligned,
//!   zero-filled, followed by a gap no block uses).
//! * [`UserMem`]: an application pointer plus length, created (unsafely) in
//!   an entry point from the C caller's promise.
//! * [`Span`]: a byte range the runtime may access: inside a live
//!   [`HeapBlock`] (kept alive by an `Arc`), application memory (valid for the
//!   duration of one C call only), or a staging copy owned by the span.
//! * [`copy`], [`copy_2d`], [`fill`]: the data-moving primitives on spans.
//! * [`Out`] and [`OutBuf`]: out-parameters of the C functions.
//! * [`HostCall`]: an application callback and its argument.
//! * [`os_thread_id`], [`fill_c_chars`]: small helpers of the entry points.
//! * [`exit`]: a function run at process exit, and an exit with a chosen
//!   status (the audit's summary and `ACLRT_SIM_ERROR_EXITCODE`).
//!
//! This module depends on no other module of the crate: the runtime above
//! it works with these types, and the entry points in `raw` create them from
//! the C caller's arguments.

use core::ffi::{c_char, c_void};
use std::ptr::{self, NonNull};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

pub(crate) mod arena;
pub(crate) mod exit;
pub(crate) mod shm;

/// Locks a mutex of this module (a leaf lock: nothing is called while it is
/// held), ignoring poisoning.
fn lock_leaf<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Alignment of every runtime allocation (device memory and pinned host
/// memory alike).
pub(crate) const ALIGN: usize = 64;

/// The backing store of one runtime allocation: `len` bytes of zero-filled,
/// page-aligned memory of the simulator's own address range ([`arena`]),
/// released when the last owner drops it.
///
/// The allocation table, the quarantine of freed blocks and every queued task
/// that touches the block hold an `Arc<HeapBlock>`; the memory is therefore
/// never returned to the allocator while anything may still access it.
pub(crate) struct HeapBlock {
    ptr: NonNull<u8>,
    /// The accessible length (`len.max(1)` of the request).
    size: usize,
    /// Who releases the memory.
    owner: Owner,
}

/// Who owns a [`HeapBlock`]'s memory.
enum Owner {
    /// The block itself: an arena block, released to the arena.
    Arena,
    /// A window into a larger block ([`HeapBlock::window`]), which owns the
    /// memory (the window releases nothing).
    Window(#[allow(dead_code)] Arc<HeapBlock>),
    /// A shared mapping of a file ([`shm`]), unmapped on drop.
    Shared,
}

// SAFETY: a `HeapBlock` exclusively owns its arena block (like a
// `Box<[u8]>`); dropping it on another thread is fine.
unsafe impl Send for HeapBlock {}
// SAFETY: `&HeapBlock` only exposes the address and length. The bytes are
// accessed through `Span`s by the primitives below; ordering conflicting
// accesses of the same device memory is the application's duty under the C
// API (exactly as with real device memory), which the simulator documents.
unsafe impl Sync for HeapBlock {}

impl HeapBlock {
    /// Allocates `len` zero-filled bytes aligned to [`ALIGN`] (a page, in
    /// fact) in the simulator's address range, followed by a gap no other
    /// block uses; `None` when the size cannot be represented or the
    /// address range cannot grow.
    pub(crate) fn new(len: usize) -> Option<Arc<HeapBlock>> {
        let size = len.max(1);
        let ptr = NonNull::new(arena::alloc(size)?)?;
        debug_assert_eq!(ptr.as_ptr().addr() % ALIGN, 0);
        Some(Arc::new(HeapBlock {
            ptr,
            size,
            owner: Owner::Arena,
        }))
    }

    /// The bytes `[off, off + len)` of this block as a block of their own
    /// (a mapping of reserved virtual memory): it keeps this block alive and
    /// releases nothing itself. `None` when the range is empty or out of
    /// bounds.
    pub(crate) fn window(self: &Arc<Self>, off: usize, len: usize) -> Option<Arc<HeapBlock>> {
        let end = off.checked_add(len)?;
        if len == 0 || end > self.size {
            return None;
        }
        let ptr = NonNull::new(self.ptr.as_ptr().wrapping_add(off))?;
        Some(Arc::new(HeapBlock {
            ptr,
            size: len,
            owner: Owner::Window(Arc::clone(self)),
        }))
    }

    /// `len` bytes of the shared file `path` (created with that length and
    /// zero-filled when `create`), mapped into this process: the memory
    /// that two processes share (IPC memory). `None` where the platform has
    /// no such mapping, or the file cannot be opened or mapped.
    pub(crate) fn shared(
        path: &std::path::Path,
        len: usize,
        create: bool,
    ) -> Option<Arc<HeapBlock>> {
        let size = len.max(1);
        let ptr = NonNull::new(shm::map(path, size, create)?)?;
        Some(Arc::new(HeapBlock {
            ptr,
            size,
            owner: Owner::Shared,
        }))
    }

    /// The start address.
    pub(crate) fn addr(&self) -> usize {
        self.ptr.as_ptr().addr()
    }

    /// The start as the pointer handed to the application (with provenance).
    pub(crate) fn user_ptr(&self) -> *mut c_void {
        self.ptr.as_ptr().cast()
    }

    /// Sets every byte of a block not yet handed out to `value`.
    pub(crate) fn fill_fresh(&self, value: u8) {
        // SAFETY: `ptr` is valid for writes of `size` bytes for as long as
        // the block lives, and `&self` keeps it alive for this call.
        unsafe { ptr::write_bytes(self.ptr.as_ptr(), value, self.size) }
    }
}

/// A few 32-bit words of a shared file ([`shm`]), read and written only
/// atomically, by every process that maps the file: the state that two
/// processes share for a notify or an IPC event (a flag, a counter).
pub(crate) struct SharedWords {
    /// The mapping (its own block: no span of it exists).
    block: Arc<HeapBlock>,
}

impl SharedWords {
    /// The number of words.
    pub(crate) const WORDS: usize = 16;

    /// Maps the file `path` (created, zero-filled, when `create`); `None`
    /// where the platform has no shared mapping or the file cannot be
    /// mapped.
    pub(crate) fn map(path: &std::path::Path, create: bool) -> Option<SharedWords> {
        let block = HeapBlock::shared(path, Self::WORDS * 4, create)?;
        Some(SharedWords { block })
    }

    /// Word `i` (below [`Self::WORDS`]; panics otherwise).
    pub(crate) fn word(&self, i: usize) -> &core::sync::atomic::AtomicU32 {
        assert!(i < Self::WORDS, "shared word {i} out of range");
        let p = self.block.ptr.as_ptr().wrapping_add(i * 4);
        // SAFETY: `p` is inside the mapping (`i * 4 + 4 <= WORDS * 4`, the
        // mapping's length), 4-byte aligned (a mapping starts on a page), and
        // valid for reads and writes for as long as `self` holds the block
        // (the returned reference borrows `self`). Every access of these
        // bytes, in this process and in any other that maps the file, goes
        // through atomics of this type: no `Span` covers this block, and the
        // files mapped as words (`aclsim_notify_…`, `aclsim_ipc_event_…`)
        // are never mapped as memory (memory files are `aclsim_ipc_<digit>…`
        // and `aclsim_vmm_…`, and the callers check the prefix), so there
        // are no non-atomic accesses to race with.
        unsafe { core::sync::atomic::AtomicU32::from_ptr(p.cast()) }
    }
}

impl Drop for HeapBlock {
    fn drop(&mut self) {
        match self.owner {
            // A window: the parent block owns (and releases) the memory.
            Owner::Window(_) => return,
            Owner::Shared => {
                // SAFETY: `ptr` and `size` are the mapping `shm::map` made,
                // released only here, once, when the last owner goes away
                // (no span of it exists any more: each holds an `Arc`).
                unsafe { shm::unmap(self.ptr.as_ptr(), self.size) };
                return;
            }
            Owner::Arena => {}
        }
        // SAFETY: `ptr` was returned by `arena::alloc(self.size)`, this is
        // the only place that releases it (once, when the last `Arc` owner
        // goes away), and no span of it exists any more (each holds an
        // `Arc`).
        unsafe { arena::free(self.ptr.as_ptr(), self.size) }
    }
}

/// An application pointer received by a C function, with the length the
/// call will access through it.
pub(crate) struct UserMem {
    ptr: *mut u8,
    writable: bool,
}

impl UserMem {
    /// Wraps a pointer argument.
    ///
    /// # Safety
    /// When the range `[ptr, ptr + len)` that the runtime later resolves is
    /// *not* memory of this runtime (the allocation table decides), the
    /// caller guarantees that it is valid for reads (and, if `writable`, for
    /// writes) of that many bytes until the C call that received `ptr`
    /// returns. This is the contract of the C API for pageable host memory.
    /// When it *is* memory of this runtime, `ptr` was derived from the
    /// pointer the runtime returned for that allocation, so it may access
    /// the range while the allocation lives (the runtime accesses it through
    /// `ptr`, [`span_in_block`](Self::span_in_block)), and the caller does
    /// not access the range otherwise while a task of the runtime may.
    pub(crate) unsafe fn new(ptr: *const c_void, writable: bool) -> UserMem {
        UserMem {
            ptr: ptr.cast::<u8>().cast_mut(),
            writable,
        }
    }

    /// The address.
    pub(crate) fn addr(&self) -> usize {
        self.ptr.addr()
    }

    /// Whether the pointer is null.
    pub(crate) fn is_null(&self) -> bool {
        self.ptr.is_null()
    }

    /// `[off, off + len)` of the runtime block `block`, which this pointer
    /// points into at `off` (the allocation table found it there), accessed
    /// through this pointer; `None` if out of bounds.
    pub(crate) fn span_in_block(
        &self,
        block: Arc<HeapBlock>,
        off: usize,
        len: usize,
    ) -> Option<Span> {
        let end = off.checked_add(len)?;
        (end <= block.size && self.addr() == block.addr().wrapping_add(off)).then(|| {
            Span {
                base: Base::BlockVia {
                    _block: block,
                    // Only moved back to the block's start; `start` adds
                    // `off` again (in bounds of the block's allocation).
                    ptr: self.ptr.wrapping_sub(off),
                },
                off,
                len,
            }
        })
    }

    /// The application memory `[ptr, ptr + len)` as a [`Span`].
    ///
    /// Only for ranges the allocation table classified as *not* runtime
    /// memory. The span is valid only until the C call that received the
    /// pointer returns: the runtime must finish (or drop) every task holding
    /// it before that call returns; `StreamShared::submit` enforces this by
    /// waiting for such tasks.
    pub(crate) fn into_app_span(self, len: usize) -> Span {
        Span {
            base: Base::App {
                ptr: self.ptr,
                writable: self.writable,
            },
            off: 0,
            len,
        }
    }

    /// Registered application memory `[ptr, ptr + len)` as a [`Span`] that
    /// may outlive the C call (a truly asynchronous copy of memory
    /// registered with `aclrtHostRegister`), keeping `keep` alive.
    ///
    /// Only for a range the runtime found inside a live host registration
    /// whose [`Registered`]
    /// token is `keep`: under the C API the application keeps registered
    /// memory valid (not freed, not remapped) until `aclrtHostUnregister`,
    /// and the runtime refuses that unregistration while any span still
    /// holds `keep` (so the memory stays valid for as long as the span
    /// exists).
    pub(crate) fn into_registered_span(self, len: usize, keep: Arc<Registered>) -> Span {
        Span {
            base: Base::Registered {
                ptr: self.ptr,
                writable: self.writable,
                _keep: keep,
            },
            off: 0,
            len,
        }
    }
}

/// The token of one live host registration (`aclrtHostRegister`): every span
/// of registered memory holds a clone, so `Arc::strong_count - 1` is the
/// number of tasks still using the registration. It keeps the pointer the
/// application registered (with its provenance), from which device-side
/// accesses through the alias are derived.
#[derive(Debug)]
pub(crate) struct Registered {
    base: *mut u8,
    len: usize,
}

// SAFETY: the token only stores the registered range's start and length;
// every access through it goes through a `Span`, whose validity argument is
// the registration contract (see `UserMem::into_registered_span`).
unsafe impl Send for Registered {}
// SAFETY: as above; `&Registered` exposes no access to the bytes.
unsafe impl Sync for Registered {}

impl Registered {
    /// The token of a new registration of `[um, um + len)`.
    pub(crate) fn new(um: &UserMem, len: usize) -> Arc<Registered> {
        Arc::new(Registered { base: um.ptr, len })
    }

    /// `[off, off + len)` of the registered range as a span (device code
    /// reaching it through the alias); `None` if out of bounds.
    ///
    /// Same contract as [`UserMem::into_registered_span`].
    pub(crate) fn span(self: &Arc<Self>, off: usize, len: usize) -> Option<Span> {
        let end = off.checked_add(len)?;
        (end <= self.len).then(|| Span {
            base: Base::Registered {
                ptr: self.base,
                writable: true,
                _keep: Arc::clone(self),
            },
            off,
            len,
        })
    }
}

enum Base {
    /// Runtime memory, kept alive by the `Arc`.
    Block(Arc<HeapBlock>),
    /// Runtime memory, kept alive by the `Arc`, accessed through the pointer
    /// the application passed (`ptr` is that pointer moved back by the
    /// span's offset, with the application pointer's provenance): the
    /// runtime reaches the memory the way the C caller gave it, so a Rust
    /// caller may pass a pointer derived from a `&mut [T]` of runtime memory
    /// (managed or pinned memory lent as a slice) and keep that reference
    /// valid across the call.
    BlockVia {
        _block: Arc<HeapBlock>,
        ptr: *mut u8,
    },
    /// Application memory, valid for the duration of one C call.
    App { ptr: *mut u8, writable: bool },
    /// A private copy (staging buffer), read-only.
    Staged(Box<[u8]>),
    /// Registered application memory, valid while its registration lives
    /// (see [`UserMem::into_registered_span`]).
    Registered {
        ptr: *mut u8,
        writable: bool,
        _keep: Arc<Registered>,
    },
}

/// A byte range the runtime may access (see the module docs).
///
/// Invariant: `off + len` never exceeds the underlying memory, and the
/// memory stays valid while the span exists (`Block`, `Staged`) or until the
/// C call that created it returns, before which the span is dropped (`App`).
pub(crate) struct Span {
    base: Base,
    off: usize,
    len: usize,
}

// SAFETY: `Block` and `Staged` own (a share of) their memory; `BlockVia`
// owns a share of its block and points into it with a pointer the
// application derived from the runtime's own (the C caller's promise, see
// `UserMem::new`), valid while the block lives. A
// `Registered` span points to registered application memory that the C
// contract keeps valid until its unregistration, which the runtime refuses
// while the span (its `_keep` token) exists. An `App` span
// is only moved to a stream worker while the creating C call waits for that
// task to finish, so the application memory it points to stays valid and the
// C API lets the runtime access it from its own threads meanwhile.
unsafe impl Send for Span {}

impl Span {
    /// `[off, off + len)` of a runtime block; `None` if out of bounds.
    pub(crate) fn in_block(block: Arc<HeapBlock>, off: usize, len: usize) -> Option<Span> {
        let end = off.checked_add(len)?;
        (end <= block.size && len <= block.size).then_some(Span {
            base: Base::Block(block),
            off,
            len,
        })
    }

    /// The length in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether this span borrows application memory (see [`UserMem`]).
    pub(crate) fn is_app(&self) -> bool {
        matches!(self.base, Base::App { .. })
    }

    /// The start address.
    pub(crate) fn addr(&self) -> usize {
        self.base_ptr().addr().wrapping_add(self.off)
    }

    fn writable(&self) -> bool {
        match &self.base {
            Base::Block(_) | Base::BlockVia { .. } => true,
            Base::App { writable, .. } => *writable,
            Base::Staged(_) => false,
            Base::Registered { writable, .. } => *writable,
        }
    }

    fn base_ptr(&self) -> *mut u8 {
        match &self.base {
            Base::Block(b) => b.ptr.as_ptr(),
            Base::BlockVia { ptr, .. } => *ptr,
            Base::App { ptr, .. } => *ptr,
            Base::Staged(b) => b.as_ptr().cast_mut(),
            Base::Registered { ptr, .. } => *ptr,
        }
    }

    /// The start pointer, derived with in-bounds arithmetic.
    fn start(&self) -> *mut u8 {
        // SAFETY: the span invariant says `off + len` lies within the
        // underlying memory, so `off` is an in-bounds offset (or one past the
        // end for an empty span) of the allocation `base_ptr` points into.
        unsafe { self.base_ptr().add(self.off) }
    }

    /// A private copy of the bytes (for `ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE`,
    /// whose source may be released as soon as the call returns).
    pub(crate) fn stage(&self) -> Span {
        let mut buf = vec![0u8; self.len].into_boxed_slice();
        // SAFETY: the span invariant makes `start()` valid for reads of
        // `len` bytes now; `buf` is a fresh, distinct allocation of `len`
        // bytes, so the ranges do not overlap.
        unsafe { ptr::copy_nonoverlapping(self.start(), buf.as_mut_ptr(), self.len) };
        Span {
            base: Base::Staged(buf),
            off: 0,
            len: self.len,
        }
    }
}

fn overlaps(a: usize, b: usize, len: usize) -> bool {
    a < b.wrapping_add(len) && b < a.wrapping_add(len)
}

/// Copies all of `src` into `dst`; `false` (and nothing copied) if the
/// lengths differ or `dst` is read-only.
pub(crate) fn copy(dst: &Span, src: &Span) -> bool {
    if dst.len != src.len || !dst.writable() {
        return false;
    }
    let (d, s, n) = (dst.start(), src.start(), dst.len);
    if n == 0 || d == s {
        return true;
    }
    if overlaps(d.addr(), s.addr(), n) {
        // SAFETY: both spans are valid for `n` bytes (span invariant, `dst`
        // writable as checked); `ptr::copy` allows overlapping ranges.
        unsafe { ptr::copy(s, d, n) }
    } else {
        // SAFETY: both spans are valid for `n` bytes (span invariant, `dst`
        // writable as checked) and the ranges were just checked to be
        // disjoint.
        unsafe { ptr::copy_nonoverlapping(s, d, n) }
    }
    true
}

/// Copies all of `src` into `out`; `false` (nothing copied) if the lengths
/// differ.
pub(crate) fn read_into(src: &Span, out: &mut [u8]) -> bool {
    if src.len != out.len() {
        return false;
    }
    // SAFETY: the span invariant makes `start()` valid for reads of `len`
    // bytes; `out` is a distinct exclusive Rust slice of the same length, so
    // the ranges do not overlap.
    unsafe { ptr::copy_nonoverlapping(src.start(), out.as_mut_ptr(), src.len) };
    true
}

/// Copies `data` into `dst`; `false` (nothing copied) if the lengths differ
/// or `dst` is read-only.
pub(crate) fn write_from(dst: &Span, data: &[u8]) -> bool {
    if dst.len != data.len() || !dst.writable() {
        return false;
    }
    // SAFETY: the span invariant makes `start()` valid for `len` bytes and
    // `dst` was checked writable; `data` is a shared Rust slice of the same
    // length that cannot alias runtime memory the span owns exclusively
    // (callers pass their own buffers), so the ranges do not overlap.
    unsafe { ptr::copy_nonoverlapping(data.as_ptr(), dst.start(), dst.len) };
    true
}

/// Whether a 2-D region of `height` rows of `width` bytes, `pitch` apart,
/// fits in `len` bytes.
pub(crate) fn extent_2d(pitch: usize, width: usize, height: usize) -> Option<usize> {
    if height == 0 || width == 0 {
        return Some(0);
    }
    (height - 1).checked_mul(pitch)?.checked_add(width)
}

/// Copies `height` rows of `width` bytes from `src` (rows `spitch` apart) to
/// `dst` (rows `dpitch` apart); `false` (and nothing copied) if a region does
/// not fit its span, a pitch is smaller than the width, or `dst` is
/// read-only.
pub(crate) fn copy_2d(
    dst: &Span,
    dpitch: usize,
    src: &Span,
    spitch: usize,
    width: usize,
    height: usize,
) -> bool {
    let fits = |span: &Span, pitch: usize| {
        pitch >= width && extent_2d(pitch, width, height).is_some_and(|e| e <= span.len)
    };
    if !dst.writable() || !fits(dst, dpitch) || !fits(src, spitch) {
        return false;
    }
    let (d, s) = (dst.start(), src.start());
    for row in 0..height {
        // SAFETY: `row * pitch + width <= extent <= span.len` for both spans
        // (checked by `fits`), so both row ranges lie inside valid memory;
        // `dst` is writable; `ptr::copy` tolerates overlap.
        unsafe { ptr::copy(s.add(row * spitch), d.add(row * dpitch), width) }
    }
    true
}

/// Sets every byte of `dst` to `value`; `false` if `dst` is read-only.
pub(crate) fn fill(dst: &Span, value: u8) -> bool {
    if !dst.writable() {
        return false;
    }
    // SAFETY: the span invariant makes `start()` valid for writes of `len`
    // bytes (writable as checked).
    unsafe { ptr::write_bytes(dst.start(), value, dst.len) }
    true
}

/// An out-parameter of a C function.
pub(crate) struct Out<T> {
    ptr: *mut T,
}

impl<T> Out<T> {
    /// Wraps an out-parameter.
    ///
    /// # Safety
    /// `ptr` is null or valid for one write of a `T` (alignment not
    /// required) until the C call that received it returns.
    pub(crate) unsafe fn new(ptr: *mut T) -> Out<T> {
        Out { ptr }
    }

    /// Whether the caller passed null.
    pub(crate) fn is_null(&self) -> bool {
        self.ptr.is_null()
    }

    /// Stores `value` (nothing happens for a null pointer).
    pub(crate) fn write(self, value: T) {
        if !self.ptr.is_null() {
            // SAFETY: non-null, so valid for one (possibly unaligned) write
            // of a `T` by the contract of `Out::new`.
            unsafe { self.ptr.write_unaligned(value) }
        }
    }
}

/// A caller-provided character buffer of a fixed capacity.
pub(crate) struct OutBuf {
    ptr: *mut c_char,
    cap: usize,
}

impl OutBuf {
    /// Wraps an output buffer.
    ///
    /// # Safety
    /// `ptr` is null or valid for writes of `cap` bytes until the C call
    /// that received it returns.
    pub(crate) unsafe fn new(ptr: *mut c_char, cap: usize) -> OutBuf {
        OutBuf { ptr, cap }
    }

    /// Whether the caller passed null.
    pub(crate) fn is_null(&self) -> bool {
        self.ptr.is_null()
    }

    /// The capacity in bytes (the terminating NUL included).
    pub(crate) fn capacity(&self) -> usize {
        self.cap
    }

    /// Writes `text` NUL-terminated, truncated to fit the capacity.
    pub(crate) fn write_str(self, text: &str) {
        if self.ptr.is_null() || self.cap == 0 {
            return;
        }
        let n = text.len().min(self.cap - 1);
        // SAFETY: `ptr` is valid for `cap` bytes (contract of `new`) and
        // `n + 1 <= cap`; the source is a distinct Rust string.
        unsafe {
            ptr::copy_nonoverlapping(text.as_ptr(), self.ptr.cast::<u8>(), n);
            self.ptr.add(n).write(0);
        }
    }
}

/// Copies `text` into a fixed `c_char` array, NUL-terminated and truncated.
pub(crate) fn fill_c_chars<const N: usize>(dst: &mut [c_char; N], text: &str) {
    dst.fill(0);
    for (d, b) in dst.iter_mut().zip(text.bytes().take(N.saturating_sub(1))) {
        *d = b as c_char;
    }
}

/// An application callback (`aclrtCallback` / `aclrtHostFunc`) with its
/// argument.
pub(crate) struct HostCall {
    f: unsafe extern "C" fn(*mut c_void),
    arg: *mut c_void,
}

// SAFETY: the C API hands callbacks and their user data to the runtime to be
// invoked on a runtime-owned thread (`aclrtLaunchHostFunc`) or on the
// application's reporting thread (`aclrtLaunchCallback`); `HostCall::new`
// makes the caller promise exactly that.
unsafe impl Send for HostCall {}

impl HostCall {
    /// Wraps a callback.
    ///
    /// # Safety
    /// Calling `f(arg)` once, later, on any thread, must be allowed: this is
    /// the contract of `aclrtLaunchHostFunc` and `aclrtLaunchCallback`.
    pub(crate) unsafe fn new(f: unsafe extern "C" fn(*mut c_void), arg: *mut c_void) -> HostCall {
        HostCall { f, arg }
    }

    /// Invokes the callback (consumes it: each is called at most once).
    pub(crate) fn call(self) {
        // SAFETY: allowed once, on any thread, by the contract of
        // `HostCall::new`.
        unsafe { (self.f)(self.arg) }
    }
}

/// The facts of one task failure handed to an exception callback
/// (`aclrtSetExceptionInfoCallback`): the C API's `aclrtExceptionInfo`, an
/// opaque type read only through the `aclrtGet*FromExceptionInfo` getters.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ExceptionInfo {
    pub task_id: u32,
    pub stream_id: u32,
    pub thread_id: u32,
    pub device_id: u32,
    pub error_code: u32,
}

/// An application's exception callback, called once per task failure with
/// an [`ExceptionInfo`] valid for the duration of the call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ExceptionHook(unsafe extern "C" fn(*mut c_void));

impl ExceptionHook {
    /// Wraps a callback.
    ///
    /// # Safety
    /// Calling `f(info)` any number of times, on any thread, with a pointer
    /// to an [`ExceptionInfo`] valid for the call, must be allowed: the
    /// contract of `aclrtSetExceptionInfoCallback` (the callback receives
    /// an `aclrtExceptionInfo*`, the getters read it during the call).
    pub(crate) unsafe fn new(f: unsafe extern "C" fn(*mut c_void)) -> ExceptionHook {
        ExceptionHook(f)
    }

    /// Whether both wrap the same function (by address).
    pub(crate) fn same(self, other: ExceptionHook) -> bool {
        ptr::fn_addr_eq(self.0, other.0)
    }

    /// Calls the callback with `info`.
    pub(crate) fn call(self, info: ExceptionInfo) {
        let mut info = info;
        // SAFETY: allowed on any thread by the contract of
        // `ExceptionHook::new`; `info` is a live local for the whole call.
        unsafe { (self.0)(ptr::from_mut(&mut info).cast()) }
    }
}

/// A stream state callback registered with `aclrtRegStreamStateCallback`,
/// with its argument.
#[derive(Clone, Copy)]
pub(crate) struct StateCall {
    f: unsafe extern "C" fn(*mut c_void, u32, *mut c_void),
    args: *mut c_void,
}

// SAFETY: `aclrtRegStreamStateCallback` hands the callback and its argument
// to the runtime to be invoked whenever a stream is created or destroyed, on
// whichever thread does it; `StateCall::new` makes the caller promise that.
unsafe impl Send for StateCall {}
// SAFETY: as for `Send`: the value is two addresses, read-only here.
unsafe impl Sync for StateCall {}

impl StateCall {
    /// Wraps a stream state callback.
    ///
    /// # Safety
    /// Calling `f(stream, state, args)` any number of times, on any thread,
    /// with a stream handle and an `aclrtStreamState`, must be allowed: the
    /// contract of `aclrtRegStreamStateCallback`.
    pub(crate) unsafe fn new(
        f: unsafe extern "C" fn(*mut c_void, u32, *mut c_void),
        args: *mut c_void,
    ) -> StateCall {
        StateCall { f, args }
    }

    /// Invokes the callback for `stream` in `state`.
    pub(crate) fn call(&self, stream: usize, state: u32) {
        // SAFETY: allowed any number of times, on any thread, by the
        // contract of `StateCall::new`.
        unsafe { (self.f)(core::ptr::without_provenance_mut(stream), state, self.args) }
    }
}

/// The operating system's id of the calling thread: on Unix `pthread_self()`,
/// the `threadId` the ACL documentation passes to `aclrtSubscribeReport`.
#[cfg(unix)]
pub(crate) fn os_thread_id() -> u64 {
    // SAFETY: `pthread_self` is a POSIX function that takes no arguments,
    // has no preconditions, cannot fail, and returns a `pthread_t`, which is
    // an integer or pointer of the size of `usize` on the Unix targets Rust
    // supports.
    unsafe extern "C" {
        safe fn pthread_self() -> usize;
    }
    pthread_self() as u64
}

/// The operating system's id of the calling thread (a per-thread counter on
/// targets without POSIX threads).
#[cfg(not(unix))]
pub(crate) fn os_thread_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static ID: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    ID.with(|id| *id)
}

/// The host buffer of an `aclrtKernelArgs*` list: the runtime writes argument
/// bytes into it, and hands out pointers into its placeholder area that the
/// application writes between its calls on the owning thread.
pub(crate) struct ArgsBuf(Box<[core::cell::UnsafeCell<u8>]>);

impl ArgsBuf {
    /// A zeroed buffer of `len` bytes.
    pub(crate) fn new(len: usize) -> ArgsBuf {
        ArgsBuf((0..len).map(|_| core::cell::UnsafeCell::new(0)).collect())
    }

    /// Stores `data` at `off`; `false` (nothing stored) when out of bounds.
    pub(crate) fn write(&self, off: usize, data: &[u8]) -> bool {
        let Some(cells) = off
            .checked_add(data.len())
            .and_then(|end| self.0.get(off..end))
        else {
            return false;
        };
        for (c, &b) in cells.iter().zip(data) {
            // SAFETY: `ArgsBuf` is not `Sync` (it holds `UnsafeCell`s), so
            // only the owning thread reaches it; the application writes
            // through handed-out pointers only between the runtime calls of
            // that thread, so no other access to this byte is in progress.
            unsafe { *c.get() = b };
        }
        true
    }

    /// A copy of `len` bytes at `off`; `None` when out of bounds.
    pub(crate) fn read(&self, off: usize, len: usize) -> Option<Vec<u8>> {
        let cells = self.0.get(off..off.checked_add(len)?)?;
        // SAFETY: as in `write`: only the owning thread accesses the cells,
        // and no application write is in progress during a runtime call.
        Some(cells.iter().map(|c| unsafe { *c.get() }).collect())
    }

    /// A pointer to byte `off`, for the application to write `len` bytes
    /// through; `None` when out of bounds.
    pub(crate) fn ptr(&self, off: usize, len: usize) -> Option<*mut u8> {
        self.0.get(off..off.checked_add(len)?)?;
        self.0.get(off).map(core::cell::UnsafeCell::get)
    }
}
