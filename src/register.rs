//! Zero-copy host registration ([`HostRegistration`],
//! [`PageAlignedBuf`], [`DeviceAlias`]), managed memory ([`ManagedBuffer`]),
//! stop-on-failure ([`Context::set_stop_on_failure`]), the per-thread last
//! error ([`last_error`], [`take_last_error`]) and the forced releases
//! ([`Stream::destroy_force`], [`Device::reset_force`]).

use core::marker::PhantomData;
use core::ops::{Deref, DerefMut};

use generativity::Id;

use crate::context::Context;
use crate::device::Device;
use crate::error::{Error, ErrorKind, Result};
use crate::ffi::register::{ManagedAlloc, PageAlloc, Registration};
use crate::ffi::{self, Mem, MemMut};
use crate::memory::access::{RawDest, RawSource, Stable};
use crate::memory::{
    DeviceMemory, DeviceRepr, HostMemory, Memory, MemoryMut, OnDevice, OnHost, PinnedMemory,
    RuntimeMemory, byte_size,
};
use crate::mode::RunMode;
use crate::stream::Stream;

// ------------------------------------------------------------ page-aligned memory

/// A fixed-length, zero-initialised heap array of `T` that starts on a
/// 4 KiB page boundary: host memory that
/// [`Context::register_host`] accepts (`aclrtHostRegister` maps whole
/// pages, and `Vec<T>` gives no such alignment).
///
/// It dereferences to `[T]`; it cannot grow or shrink. Register it with
/// `ctx.register_host(&mut buf)`: the registration borrows it mutably, so it
/// cannot be freed, moved or read through `buf` until the registration is
/// dropped or [`unregistered`](HostRegistration::unregister).
///
/// `Send` and `Sync` like a `Box<[T]>`.
pub struct PageAlignedBuf<T> {
    alloc: PageAlloc,
    _elem: PhantomData<T>,
}

impl<T: DeviceRepr> PageAlignedBuf<T> {
    /// `len` zeroed elements.
    ///
    /// Errors: [`Error::InvalidAllocationSize`] for zero bytes or overflow;
    /// an [`ErrorKind::OutOfMemory`] error if the allocator fails.
    pub fn zeroed(len: usize) -> Result<Self> {
        let bytes = byte_size::<T>(len)?;
        let alloc = PageAlloc::new(bytes).ok_or(Error::Acl {
            code: aclrt_sys::ACL_ERROR_BAD_ALLOC,
            kind: ErrorKind::OutOfMemory,
            function: "alloc_zeroed",
            message: format!("the host allocator could not provide {bytes} page-aligned bytes"),
        })?;
        Ok(PageAlignedBuf {
            alloc,
            _elem: PhantomData,
        })
    }

    /// A copy of `src` (which must not be empty).
    pub fn from_slice(src: &[T]) -> Result<Self> {
        let mut buf = Self::zeroed(src.len())?;
        buf.copy_from_slice(src);
        Ok(buf)
    }
}

impl<T: DeviceRepr> Deref for PageAlignedBuf<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        bytemuck::cast_slice(self.alloc.as_bytes())
    }
}

impl<T: DeviceRepr> DerefMut for PageAlignedBuf<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        bytemuck::cast_slice_mut(self.alloc.as_bytes_mut())
    }
}

impl<T: DeviceRepr + core::fmt::Debug> core::fmt::Debug for PageAlignedBuf<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

// ------------------------------------------------------------ host registration

/// User host memory registered for the device of the context branded
/// `'id` (`aclrtHostRegister`), borrowed mutably for `'a`.
///
/// * **Zero-copy, truly asynchronous.** It is pinned memory for the
///   runtime: an operand of asynchronous copies in a
///   [`Scope`](crate::Scope) (`lane.copy(&reg, &mut on_device)`), which the
///   runtime performs without staging and without waiting (pageable memory
///   would be copied before the call returns). It is host memory
///   ([`OnHost`]) for the copy direction.
/// * **Borrowed while registered.** The registration holds the `&'a mut
///   [T]` it was made from, so the memory cannot be freed, moved, resized or
///   touched through its owner until the registration ends (compile errors,
///   `ui-tests/fail/host_register_*`). Host code reads and writes it through
///   the registration ([`as_slice`](Self::as_slice),
///   [`as_mut_slice`](Self::as_mut_slice)), which a scope borrows while
///   asynchronous work uses it.
/// * **Given back.** Dropping it unregisters (`aclrtHostUnregister` with the
///   exact base address); [`unregister`](Self::unregister) does the same,
///   reports the error, and returns the borrow.
/// * **The device alias** ([`device_alias`](Self::device_alias)) is a
///   separate type that only device code (a kernel argument) may take; it
///   is not a copy operand.
///
/// # Leaks
/// `mem::forget` of a registration is a leak of the runtime's registration
/// entry, not undefined behaviour. It ends the borrow of the memory while
/// the runtime still lists it as registered, so the owner may then free the
/// memory. Nothing can reach the memory through the runtime any more: no
/// asynchronous work can be using it (a scope that borrowed the
/// registration has synchronised before the registration could be moved
/// into `forget`), the alias borrows the registration, and no later call
/// can name it. What stays is the stale entry, leaked like any forgotten
/// handle: a later registration of the same pages fails with 507910, and
/// the registration still counts as a live child of its context, so
/// [`Context::destroy`], [`Device::reset`](crate::Device::reset) and
/// [`Acl::finalize`](crate::Acl::finalize) return
/// [`Error::LiveChildren`] (the simulator's
/// audit lists it as a live `HostRegistration`, with no rule violation;
/// `tests/lock_discipline/trusted_base.rs`, `forgotten_registration_is_a_leak_of_the_runtime_entry`).
/// Memory the allocator later hands out at those addresses still counts as
/// registered for the runtime: safe code only copies such (pageable)
/// memory synchronously, and a synchronous copy that straddles the stale
/// range's edge is refused (107000 on the simulator).
///
/// This rests on one assumption about the runtime (its documentation says
/// only "unregister before freeing", acl-facts F.4): a registration entry
/// by itself does not make the runtime or the device touch the range; only
/// work queued on it, or device code given its alias, does. Freeing memory
/// that a *usable* registration covers would be undefined behaviour, and
/// does not compile (`ui-tests/fail/host_register_free_while_registered.rs`).
///
/// # Products
/// `aclrtHostRegister` exists on Ascend 950, Atlas A3 and Atlas A2 only
/// (others: 207000, [`ErrorKind::NotSupported`]); the simulator models an
/// A2 (`Ascend910B-sim`).
///
/// `Send` and `Sync` (like the `&mut [T]` it holds).
#[doc(alias = "aclrtHostRegister")]
#[doc(alias = "aclrtHostUnregister")]
pub struct HostRegistration<'ctx, 'a, 'id, T, M> {
    reg: Registration<'a>,
    _ctx: PhantomData<&'ctx ()>,
    _brand: PhantomData<Id<'id>>,
    _elem: PhantomData<&'a mut [T]>,
    _mode: PhantomData<M>,
}

impl<'ctx, 'a, 'id, T: DeviceRepr, M: RunMode> HostRegistration<'ctx, 'a, 'id, T, M> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.reg.mem().len() / core::mem::size_of::<T>()
    }

    /// Whether there are no elements (never true: empty memory cannot be
    /// registered).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The registered memory, for the host.
    pub fn as_slice(&self) -> &[T] {
        bytemuck::cast_slice(self.reg.as_bytes())
    }

    /// The registered memory, mutably, for the host.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        bytemuck::cast_slice_mut(self.reg.as_bytes_mut())
    }

    /// The device-side alias of the memory (`devPtr` of
    /// `aclrtHostRegister`): for device code only, as a kernel argument.
    #[doc(alias = "aclrtHostGetDevicePointer")]
    pub fn device_alias(&self) -> DeviceAlias<'_, 'id, T> {
        DeviceAlias {
            addr: self.reg.alias(),
            len: self.len(),
            _borrow: PhantomData,
            _brand: PhantomData,
            _elem: PhantomData,
        }
    }

    /// The device-side alias for device code that writes the memory: an
    /// argument for `Out<T>` / `InOut<T>` kernel parameters. Borrows the
    /// registration exclusively, so nothing else touches the memory while a
    /// kernel may write it.
    #[doc(alias = "aclrtHostGetDevicePointer")]
    pub fn device_alias_mut(&mut self) -> DeviceAliasMut<'_, 'id, T> {
        DeviceAliasMut {
            addr: self.reg.alias(),
            len: self.len(),
            _borrow: PhantomData,
            _brand: PhantomData,
            _elem: PhantomData,
        }
    }

    /// Unregister now (`aclrtHostUnregister`), reporting the runtime's
    /// error, and give the memory back.
    ///
    /// On error the registration is dropped (which retries the
    /// unregistration; see the type's "Leaks" section for why a stale entry
    /// is harmless).
    #[doc(alias = "aclrtHostUnregister")]
    pub fn unregister(self) -> Result<&'a mut [T]> {
        match self.reg.unregister() {
            Ok(bytes) => Ok(bytemuck::cast_slice_mut(bytes)),
            Err((reg, e)) => {
                drop(reg);
                Err(e)
            }
        }
    }
}

impl<T: DeviceRepr + core::fmt::Debug, M: RunMode> core::fmt::Debug
    for HostRegistration<'_, '_, '_, T, M>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HostRegistration")
            .field("address", &self.reg.mem().as_ptr())
            .field("len", &self.len())
            .field("context", &self.reg.ctx().as_ptr())
            .finish()
    }
}

impl<T: DeviceRepr, M: RunMode> RawSource for HostRegistration<'_, '_, '_, T, M> {
    fn raw(&self) -> Mem<'_> {
        self.reg.mem()
    }
}
impl<T: DeviceRepr, M: RunMode> RawDest for HostRegistration<'_, '_, '_, T, M> {
    fn raw_mut(&mut self) -> MemMut<'_> {
        self.reg.mem_mut()
    }
}
impl<'id, T: DeviceRepr, M: RunMode> Memory<'id> for HostRegistration<'_, '_, 'id, T, M> {
    type Elem = T;
    type Place = OnHost;
    fn len(&self) -> usize {
        HostRegistration::len(self)
    }
}
impl<'id, T: DeviceRepr, M: RunMode> MemoryMut<'id> for HostRegistration<'_, '_, 'id, T, M> {}
impl<'id, T: DeviceRepr, M: RunMode> HostMemory<'id> for HostRegistration<'_, '_, 'id, T, M> {}
// The address stays put: the registration holds the exclusive borrow.
impl<T: DeviceRepr, M: RunMode> Stable for HostRegistration<'_, '_, '_, T, M> {}
impl<'id, T: DeviceRepr, M: RunMode> PinnedMemory<'id> for HostRegistration<'_, '_, 'id, T, M> {}
// Not `CpuVisible`: `Lane::host_fn_with` would view it as a `PinnedSlice`,
// which is a memset target (`RuntimeMemory`); a memset of registered host
// memory is undefined. A host step on it goes through `InFlight::wait` and
// `as_mut_slice`.

/// The device-side address of registered host memory
/// ([`HostRegistration::device_alias`]), for device code only.
///
/// The runtime documents that only device code may use it (for example as
/// a kernel argument) and that memory operations (copies, memsets,
/// `aclrtPointerGetAttributes`) must not: so this type implements none of
/// the copy-operand traits ([`Memory`]); the kernel-argument API takes it.
/// It is `Copy`, carries the context brand `'id` and the length, and
/// borrows the registration for `'r`, so it cannot outlive it (nor be used
/// after [`HostRegistration::unregister`]).
#[derive(Clone, Copy)]
pub struct DeviceAlias<'r, 'id, T> {
    addr: usize,
    len: usize,
    _borrow: PhantomData<&'r ()>,
    _brand: PhantomData<Id<'id>>,
    _elem: PhantomData<fn() -> T>,
}

// `DeviceAlias` is an address and a length: `Send` and `Sync`, since sending
// or sharing it gives the CPU access to nothing.
impl<T: DeviceRepr> DeviceAlias<'_, '_, T> {
    /// Number of elements it covers.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it covers no elements (never true).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address, as a kernel argument takes it (never
    /// dereferenceable by the CPU, never a copy operand).
    pub fn as_raw(&self) -> *mut core::ffi::c_void {
        core::ptr::without_provenance_mut(self.addr)
    }
}

impl<T> DeviceAlias<'_, '_, T> {
    /// The device address and the length in elements.
    pub(crate) fn addr_len(&self) -> (usize, usize) {
        (self.addr, self.len)
    }
}

/// The device-side address of registered host memory for device code that
/// **writes** it ([`HostRegistration::device_alias_mut`]): a kernel
/// argument for `Out<T>` / `InOut<T>` parameters.
///
/// Holds the registration exclusively (`&'r mut`), so while a kernel may
/// write through it — for the rest of the scope it is passed in — neither
/// the CPU nor other asynchronous work can touch the memory. Not `Copy`.
pub struct DeviceAliasMut<'r, 'id, T> {
    addr: usize,
    len: usize,
    _borrow: PhantomData<&'r mut ()>,
    _brand: PhantomData<Id<'id>>,
    _elem: PhantomData<fn() -> T>,
}

impl<T> DeviceAliasMut<'_, '_, T> {
    /// Number of elements it covers.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it covers no elements (never true).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device address and the length in elements.
    pub(crate) fn addr_len(&self) -> (usize, usize) {
        (self.addr, self.len)
    }
}

impl<T> core::fmt::Debug for DeviceAliasMut<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceAliasMut")
            .field("address", &format_args!("{:#x}", self.addr))
            .field("len", &self.len)
            .finish()
    }
}

impl<T> core::fmt::Debug for DeviceAlias<'_, '_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceAlias")
            .field("address", &format_args!("{:#x}", self.addr))
            .field("len", &self.len)
            .finish()
    }
}

// ------------------------------------------------------------ managed memory

/// Managed (unified) memory of `T` (`aclrtMemAllocManaged`, flag
/// `ACL_RT_MEM_ATTACH_GLOBAL`), belonging to the context branded `'id`,
/// freed with `aclrtFree`.
///
/// Both the host and the device may touch it; pages move to whoever
/// touches them (frequent switching is slow). The types decide *when*:
/// * the host reads and writes it by value ([`get`](Self::get),
///   [`set`](Self::set), [`to_vec`](Self::to_vec),
///   [`copy_from_slice`](Self::copy_from_slice),
///   [`copy_to_slice`](Self::copy_to_slice), in every run mode) and, in host
///   run mode only, through the plain slices [`as_slice`](Self::as_slice) and
///   [`as_mut_slice`](Self::as_mut_slice); all need `&self` / `&mut self`;
/// * asynchronous work in a [`Scope`](crate::Scope) takes it like device
///   memory (it is [`OnDevice`] for the copy direction), borrowing it for the
///   rest of the scope: while device work may be in flight, the host cannot
///   reach it (`ui-tests/fail/managed_host_access_in_flight.rs`).
///
/// The runtime leaves it uninitialised; this crate zeroes it at allocation
/// (from the host). Its size is rounded up to 2 MiB by the runtime.
/// Supported on Atlas A2 and A3 with CANN 9.0.0 headers or newer (the
/// simulator models an A2 and CANN 9.0.0); elsewhere the allocation fails
/// with [`ErrorKind::NotSupported`].
///
/// The run mode `M` is its context's: in device run mode managed memory is
/// memory of its context's device, so, as for pinned memory
/// ([`PageableRunMode`](crate::bounds::PageableRunMode)), no plain `&[T]`
/// of it is handed out there (any context would copy that brand-free slice,
/// also one of another device without peer access).
///
/// `Send` and `Sync` like [`DeviceBuffer`](crate::DeviceBuffer).
#[doc(alias = "aclrtMemAllocManaged")]
pub struct ManagedBuffer<'ctx, 'id, T, M: RunMode> {
    alloc: ManagedAlloc<'ctx>,
    _brand: PhantomData<Id<'id>>,
    _elem: PhantomData<T>,
    _mode: PhantomData<M>,
}

impl<T: DeviceRepr, M: RunMode> ManagedBuffer<'_, '_, T, M> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.alloc.len() / core::mem::size_of::<T>()
    }

    /// Whether there are no elements (never true).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The memory as a plain slice, for the host (no device work is in
    /// flight on it while this borrow lives). Host run mode only
    /// ([`PageableRunMode`](crate::bounds::PageableRunMode)): in device run
    /// mode it is memory of its context's device, and a brand-free `&[T]`
    /// would let a context of another device copy it; use the by-value API
    /// there.
    pub fn as_slice(&self) -> &[T]
    where
        M: crate::memory::PageableRunMode,
    {
        self.elems()
    }

    /// The memory as a plain mutable slice, for the host. Host run mode
    /// only, as [`as_slice`](Self::as_slice).
    pub fn as_mut_slice(&mut self) -> &mut [T]
    where
        M: crate::memory::PageableRunMode,
    {
        bytemuck::cast_slice_mut(self.alloc.as_bytes_mut())
    }

    fn elems(&self) -> &[T] {
        bytemuck::cast_slice(self.alloc.as_bytes())
    }

    /// The element at `index` (a copy), or `None` when out of bounds. Every
    /// run mode.
    pub fn get(&self, index: usize) -> Option<T> {
        self.elems().get(index).copied()
    }

    /// Set the element at `index` to `value`. Every run mode.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] when `index >= len`
    /// (nothing is written).
    pub fn set(&mut self, index: usize, value: T) -> Result<()> {
        let len = self.len();
        let elems: &mut [T] = bytemuck::cast_slice_mut(self.alloc.as_bytes_mut());
        match elems.get_mut(index) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(crate::Error::OutOfRange {
                start: index,
                end: index.saturating_add(1),
                len,
            }),
        }
    }

    /// The elements, copied into a `Vec`. Every run mode.
    pub fn to_vec(&self) -> Vec<T> {
        self.elems().to_vec()
    }

    /// Copy `src` into the memory (lengths must be equal). Every run mode.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the
    /// lengths differ (nothing is written).
    pub fn copy_from_slice(&mut self, src: &[T]) -> Result<()> {
        let elems: &mut [T] = bytemuck::cast_slice_mut(self.alloc.as_bytes_mut());
        if elems.len() != src.len() {
            return Err(crate::Error::LengthMismatch {
                src: src.len(),
                dst: elems.len(),
            });
        }
        elems.copy_from_slice(src);
        Ok(())
    }

    /// Copy the memory into `dst` (lengths must be equal). Every run mode.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the
    /// lengths differ (nothing is written).
    pub fn copy_to_slice(&self, dst: &mut [T]) -> Result<()> {
        let elems = self.elems();
        if elems.len() != dst.len() {
            return Err(crate::Error::LengthMismatch {
                src: elems.len(),
                dst: dst.len(),
            });
        }
        dst.copy_from_slice(elems);
        Ok(())
    }

    /// The address, for diagnostics and interop.
    pub fn as_ptr(&self) -> *const core::ffi::c_void {
        self.alloc.as_ptr()
    }

    /// Free the memory now (`aclrtFree`), reporting the runtime's error.
    #[doc(alias = "aclrtFree")]
    pub fn free(self) -> Result<()> {
        self.alloc.free()
    }
}

impl<T: DeviceRepr, M: RunMode> core::fmt::Debug for ManagedBuffer<'_, '_, T, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ManagedBuffer")
            .field("address", &self.alloc.as_ptr())
            .field("len", &self.len())
            .finish()
    }
}

impl<T: DeviceRepr, M: RunMode> RawSource for ManagedBuffer<'_, '_, T, M> {
    fn raw(&self) -> Mem<'_> {
        self.alloc.mem()
    }
}
impl<T: DeviceRepr, M: RunMode> RawDest for ManagedBuffer<'_, '_, T, M> {
    fn raw_mut(&mut self) -> MemMut<'_> {
        self.alloc.mem_mut()
    }
}
impl<'id, T: DeviceRepr, M: RunMode> Memory<'id> for ManagedBuffer<'_, 'id, T, M> {
    type Elem = T;
    type Place = OnDevice;
    fn len(&self) -> usize {
        ManagedBuffer::len(self)
    }
}
impl<'id, T: DeviceRepr, M: RunMode> MemoryMut<'id> for ManagedBuffer<'_, 'id, T, M> {}
impl<'id, T: DeviceRepr, M: RunMode> DeviceMemory<'id> for ManagedBuffer<'_, 'id, T, M> {}
impl<T: DeviceRepr, M: RunMode> Stable for ManagedBuffer<'_, '_, T, M> {}
impl<'id, T: DeviceRepr, M: RunMode> PinnedMemory<'id> for ManagedBuffer<'_, 'id, T, M> {}

// A memset target (`RuntimeMemory`, in memory/kinds.rs): the runtime allocated it.
impl<'id, T: DeviceRepr, M: RunMode> RuntimeMemory<'id> for ManagedBuffer<'_, 'id, T, M> {}

// ------------------------------------------------------------ context methods

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    /// Register `mem` for this context's device (`aclrtHostRegister`,
    /// `ACL_HOST_REGISTER_MAPPED`), borrowing it mutably until the
    /// registration is dropped or unregistered. See [`HostRegistration`].
    ///
    /// Errors: [`Error::InvalidAllocationSize`] for empty memory;
    /// [`Error::NotPageAligned`] unless `mem` starts on a 4 KiB boundary
    /// (use [`PageAlignedBuf`]); 507910 (`ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED`)
    /// if it overlaps a live registration; 207000 on products without the
    /// feature.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// use aclrt::{Acl, HostMode, PageAlignedBuf, make_guard};
    ///
    /// let acl = Acl::init()?;
    /// let device = acl.require::<HostMode>()?.device(0)?;
    /// make_guard!(guard);
    /// let ctx = device.create_context(guard)?;
    /// let stream = ctx.create_stream()?;
    /// let mut user = PageAlignedBuf::from_slice(&[1.0f32; 1024])?;
    /// let mut on_device = ctx.alloc::<f32>(1024)?;
    /// {
    ///     let mut reg = ctx.register_host(&mut user)?;
    ///     ctx.scope(|s| {
    ///         make_guard!(l);
    ///         let lane = s.lane(&stream, l);
    ///         lane.copy(&reg, &mut on_device)?; // truly asynchronous, no staging
    ///         Ok(())
    ///     })?;
    ///     reg.as_mut_slice()[0] = 2.0; // the scope is over: the host may write
    ///     reg.unregister()?;
    /// }
    /// user[1] = 3.0; // given back
    /// let mut back = vec![0.0f32; 1024];
    /// ctx.download(&on_device, &mut back)?;
    /// assert_eq!(back[0], 1.0);
    /// # drop(on_device); drop(stream); ctx.destroy()?; device.reset()?; acl.finalize()?;
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtHostRegister")]
    pub fn register_host<'a, T: DeviceRepr>(
        &self,
        mem: &'a mut [T],
    ) -> Result<HostRegistration<'_, 'a, 'id, T, M>> {
        let reg = Registration::new(self.raw(), MemMut::from_slice(mem))?;
        Ok(HostRegistration {
            reg,
            _ctx: PhantomData,
            _brand: PhantomData,
            _elem: PhantomData,
            _mode: PhantomData,
        })
    }

    /// Allocate managed memory for `len` elements, zeroed
    /// (`aclrtMemAllocManaged` with `ACL_RT_MEM_ATTACH_GLOBAL`). See
    /// [`ManagedBuffer`].
    ///
    /// Errors: [`Error::InvalidAllocationSize`] for zero bytes or overflow;
    /// an out-of-memory error; 207000 where managed memory is unsupported.
    #[doc(alias = "aclrtMemAllocManaged")]
    pub fn alloc_managed<T: DeviceRepr>(&self, len: usize) -> Result<ManagedBuffer<'_, 'id, T, M>> {
        let bytes = byte_size::<T>(len)?;
        ffi::make_current(self.raw())?;
        Ok(ManagedBuffer {
            alloc: ManagedAlloc::new(self.raw(), bytes)?,
            _brand: PhantomData,
            _elem: PhantomData,
            _mode: PhantomData,
        })
    }

    /// Put this context in stop-on-failure mode
    /// (`aclrtSetStreamFailureMode(ACL_STOP_ON_FAILURE)` on its default
    /// stream; the mode applies to every stream of the context).
    ///
    /// One-way: there is no method back to continue-on-failure (the runtime
    /// refuses it with 207000). After the first failed task (for example a
    /// device fault, 507015), that stream's remaining tasks do not run, and
    /// every later submission to any stream of the context and every
    /// synchronisation fails with the stored code (an [`Error::Acl`] with
    /// that code and [`ErrorKind::DeviceFault`]), until the context is
    /// destroyed or its device reset. The default (continue-on-failure)
    /// reports a failure once, at the next synchronisation, and keeps
    /// running later tasks.
    ///
    /// Pick it when results after a failure are worthless (a pipeline
    /// whose later stages consume earlier output): work stops early instead
    /// of producing garbage.
    ///
    /// Errors: 207000 if the default stream already had a failed task, or on
    /// products without the feature.
    #[doc(alias = "aclrtSetStreamFailureMode")]
    pub fn set_stop_on_failure(&self) -> Result<()> {
        ffi::register::set_stop_on_failure(self.raw())
    }
}

// ------------------------------------------------------------ last error

/// The calling thread's last runtime error code (`aclrtPeekAtLastError`),
/// if any; it stays stored. [`ErrorKind::from_code`] classifies it.
///
/// The runtime stores the code of every failed runtime-layer call on the
/// thread that made it (also device faults reported by a synchronisation),
/// and keeps it until [`take_last_error`]: successful calls do not clear it,
/// and parameter checks of the ACL layer (100000) do not set it. Every
/// [`Error::Acl`] already carries the code of the call that failed, so this
/// adds information only where no `Error` reached you: after a failure
/// inside `Drop` (which cannot report), or in code of another library on
/// the same thread.
///
/// A free function, not a method of a token: the value is per thread, and
/// a function called on a thread reads that thread's value, so there is
/// nothing a `!Send` token could add.
#[doc(alias = "aclrtPeekAtLastError")]
pub fn last_error() -> Option<i32> {
    let code = ffi::register::last_error(false);
    (code != 0).then_some(code)
}

/// The calling thread's last runtime error code, taken: returns it and
/// resets it to none (`aclrtGetLastError`). See [`last_error`];
/// [`ErrorKind::from_code`] classifies it.
#[doc(alias = "aclrtGetLastError")]
pub fn take_last_error() -> Option<i32> {
    let code = ffi::register::last_error(true);
    (code != 0).then_some(code)
}

// ------------------------------------------------------------ forced release

impl Stream<'_, '_> {
    /// Destroy the stream without waiting for its queued work
    /// (`aclrtDestroyStreamForce`): queued tasks are dropped, a running one
    /// finishes on its own ([`Context::synchronize`](crate::Context::synchronize),
    /// which synchronises the context's live streams one by one, does not
    /// wait for it; the device's reset does).
    ///
    /// Safe because it takes the stream by value: no [`Scope`](crate::Scope)
    /// can be open on it (lanes borrow the stream, and a scope synchronises
    /// before it returns), so no borrowed buffer has work queued here. What
    /// can be dropped is unscoped work: `'static` host functions
    /// ([`Stream::launch_host_fn`]) that never run (they are dropped at
    /// finalize; one already running completes), and event records, so an
    /// event recorded here may never complete. Pick it to shut down fast
    /// when queued unscoped work is no longer wanted; [`Stream::destroy`]
    /// waits for it instead.
    #[doc(alias = "aclrtDestroyStreamForce")]
    pub fn destroy_force(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        ffi::register::destroy_stream_force(this.raw(), this.ctx_raw())
    }
}

impl<M: RunMode> Device<'_, M> {
    /// Release the device for every holder in the process at once
    /// (`aclrtResetDeviceForce`), however many `aclrtSetDevice` calls were
    /// made (also by C code outside this crate); it waits for pending tasks
    /// like [`reset`](Self::reset).
    ///
    /// The runtime allows it once, last: a later plain or forced reset fails
    /// with 507007. So it is offered to the last owner only: if another
    /// [`Device`] handle of this device is open, it is not called and
    /// [`Error::DeviceInUse`] is returned; if something made through the
    /// device is alive, [`Error::LiveChildren`]. (On an error the handle is
    /// dropped, which releases its own reference as [`reset`](Self::reset)
    /// would.) Pick it
    /// at the very end of a program that shares the device with code that
    /// set it without resetting it.
    #[doc(alias = "aclrtResetDeviceForce")]
    pub fn reset_force(self) -> Result<()> {
        let id = i32::try_from(self.id()).unwrap_or(i32::MAX);
        ffi::register::reset_device_force(id)?;
        core::mem::forget(self);
        Ok(())
    }
}
