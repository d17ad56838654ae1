//! Virtual memory: a reserved address range ([`Reservation`]), physical
//! allocations ([`PhysicalMem`]) and the mappings between them
//! ([`Mapping`]).
//!
//! The lifecycle is checked by lifetimes:
//! * a [`Mapping`] borrows its reservation (shared: several mappings may lie
//!   in one range) and its physical allocations (exclusively: an allocation
//!   is mapped once, so the bytes a writable view reaches are reached
//!   through no other view of this process). Unmapping (dropping the
//!   mapping) therefore comes before releasing the range or freeing the
//!   allocation: the other order does not compile;
//! * every size is a [`Granules`] count of the context's allocation
//!   granularity, so no size or offset can be misaligned;
//! * a mapping's bytes are device memory of its context (the brand `'id`):
//!   [`Mapping::view`] and [`Mapping::view_mut`] give the same
//!   [`DeviceView`]/[`DeviceViewMut`] a [`DeviceBuffer`](crate::DeviceBuffer)
//!   gives, usable in copies, memsets and scopes with the same rules.
//!
//! ```
//! # let _sim = aclrt::sim::exclusive();
//! use aclrt::{Acl, HostMode, make_guard};
//! let acl = Acl::init()?;
//! let device = acl.require::<HostMode>()?.device(0)?;
//! make_guard!(g);
//! let ctx = device.create_context(g)?;
//! let gran = ctx.granularity()?;
//! let range = ctx.reserve(gran.granules(4)?)?;
//! let mut phys = ctx.alloc_physical(gran.granules(1)?)?;
//! let mut mapping = range.map(0, &mut phys)?;
//! ctx.memset(&mut mapping.view_mut::<u8>(), 0x11)?;
//! let mut back = [0u8; 8];
//! ctx.copy(&mapping.view::<u8>().split_at(8)?.0, &mut back)?;
//! assert_eq!(back, [0x11; 8]);
//! mapping.unmap()?;        // before the allocation and the range go
//! phys.free()?;
//! range.release()?;
//! # drop(ctx);
//! # drop(device);
//! # acl.finalize()?;
//! # aclrt::sim::audit().assert_clean();
//! # Ok::<(), aclrt::Error>(())
//! ```
//!
//! Leaking a mapping (`mem::forget`) ends its borrows, but the range and
//! the allocation know they are still mapped: their `release`/`free`
//! return [`Error::LiveChildren`](crate::Error::LiveChildren) without a
//! runtime call, and their `Drop` leaks them, which is safe. Every
//! reservation and allocation is a child of its context, so a device reset
//! while one lives is refused
//! ([`Error::LiveChildren`](crate::Error::LiveChildren)).

use core::ffi::c_void;
use core::marker::PhantomData;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use generativity::Id;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::vmm::Addr;
use crate::ffi::{self, Raw};
use crate::memory::{DeviceRepr, DeviceView, DeviceViewMut};
use crate::mode::RunMode;
use crate::rule::locks::{Rank, lock};

/// The allocation granularity of a context's device
/// (`aclrtMemGetAllocationGranularity`, recommended): the unit of every
/// size and offset of virtual memory. Made by
/// [`Context::granularity`].
#[derive(Clone, Copy, Debug)]
pub struct Granularity<'id> {
    bytes: usize,
    _brand: PhantomData<Id<'id>>,
}

impl<'id> Granularity<'id> {
    /// The granule size in bytes.
    pub fn bytes(self) -> usize {
        self.bytes
    }

    /// `count` granules (at least one).
    ///
    /// Errors: [`Error::InvalidAllocationSize`] for zero, or a byte size that
    /// overflows `usize`.
    pub fn granules(self, count: usize) -> Result<Granules<'id>> {
        if count == 0 || count.checked_mul(self.bytes).is_none() {
            return Err(Error::InvalidAllocationSize {
                len: count,
                elem_size: self.bytes,
            });
        }
        Ok(Granules {
            count,
            granule: self.bytes,
            _brand: PhantomData,
        })
    }

    /// The fewest granules that hold `bytes` bytes (at least one).
    ///
    /// Errors: as [`granules`](Self::granules).
    pub fn granules_for(self, bytes: usize) -> Result<Granules<'id>> {
        self.granules(bytes.div_ceil(self.bytes).max(1))
    }
}

/// A positive number of granules of the device of the context branded
/// `'id`: a size that cannot be misaligned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Granules<'id> {
    count: usize,
    granule: usize,
    _brand: PhantomData<Id<'id>>,
}

impl Granules<'_> {
    /// How many granules.
    pub fn count(self) -> usize {
        self.count
    }

    /// The size in bytes.
    pub fn bytes(self) -> usize {
        self.count * self.granule
    }
}

/// Access rights of a mapping for a device (`aclrtMemSetAccess`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `ACL_RT_MEM_ACCESS_FLAGS_NONE`.
    None,
    /// `ACL_RT_MEM_ACCESS_FLAGS_READ`.
    Read,
    /// `ACL_RT_MEM_ACCESS_FLAGS_READWRITE`.
    ReadWrite,
}

impl Access {
    fn to_raw(self) -> u32 {
        match self {
            Access::None => aclrt_sys::ACL_RT_MEM_ACCESS_FLAGS_NONE,
            Access::Read => aclrt_sys::ACL_RT_MEM_ACCESS_FLAGS_READ,
            Access::ReadWrite => aclrt_sys::ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
        }
    }

    fn from_raw(flags: u64) -> Access {
        if flags == u64::from(aclrt_sys::ACL_RT_MEM_ACCESS_FLAGS_READWRITE) {
            Access::ReadWrite
        } else if flags == u64::from(aclrt_sys::ACL_RT_MEM_ACCESS_FLAGS_READ) {
            Access::Read
        } else {
            Access::None
        }
    }
}

/// A reserved virtual address range of a context's device
/// (`aclrtReserveMemAddress`), released on drop (`aclrtReleaseMemAddress`).
/// Mappings borrow it, so it is released only when none is left.
#[doc(alias = "aclrtReserveMemAddress")]
#[doc(alias = "aclrtReleaseMemAddress")]
pub struct Reservation<'ctx, 'id> {
    start: Addr,
    size: Granules<'id>,
    /// Which granules are mapped (the crate's own check, before the runtime's).
    mapped: Mutex<Vec<bool>>,
    ctx: Raw,
    _ctx: PhantomData<&'ctx ()>,
}

impl core::fmt::Debug for Reservation<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Reservation")
            .field("address", &self.start.as_ptr())
            .field("granules", &self.size.count)
            .finish()
    }
}

/// Physical device memory (`aclrtMallocPhysical`), freed on drop
/// (`aclrtFreePhysical`). A [`Mapping`] borrows it mutably, so it is freed
/// only when it is mapped nowhere.
#[doc(alias = "aclrtMallocPhysical")]
#[doc(alias = "aclrtFreePhysical")]
pub struct PhysicalMem<'ctx, 'id> {
    handle: Raw,
    size: Granules<'id>,
    /// Imported from another process's export (only the owner exports).
    imported: bool,
    /// Whether a mapping (possibly a forgotten one) still maps it.
    mapped: AtomicBool,
    ctx: Raw,
    _ctx: PhantomData<&'ctx ()>,
}

impl core::fmt::Debug for PhysicalMem<'_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PhysicalMem")
            .field("handle", &self.handle.as_ptr())
            .field("granules", &self.size.count)
            .finish()
    }
}

/// A physical allocation exported for other processes
/// (`aclrtMemExportToShareableHandle`): a plain value to send to them, with
/// the size they need to import it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShareableHandle {
    /// The runtime's handle.
    pub handle: u64,
    /// The number of granules exported.
    pub granules: usize,
}

/// Physical allocations mapped at consecutive granules of a reservation
/// (`aclrtMapMem`), unmapped on drop (`aclrtUnmapMem`). Borrows the
/// reservation for `'r` and each allocation mutably for `'p`.
#[doc(alias = "aclrtMapMem")]
#[doc(alias = "aclrtUnmapMem")]
pub struct Mapping<'r, 'p, 'id> {
    span: ffi::vmm::Span,
    /// The granule index where each piece starts, in the reservation.
    pieces: Vec<(usize, usize)>,
    /// The granule right after the last piece.
    end: usize,
    reservation: &'r Reservation<'r, 'id>,
    /// The allocations, borrowed mutably by the caller for `'p` (so no
    /// one else reaches them); shared here only to clear their flag.
    phys: Vec<&'p PhysicalMem<'p, 'id>>,
}

impl core::fmt::Debug for Mapping<'_, '_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mapping")
            .field("address", &self.span.start().as_ptr())
            .field("bytes", &self.span.bytes())
            .finish()
    }
}

impl<'dev, 'id, M: RunMode> Context<'dev, 'id, M> {
    /// The allocation granularity of this context's device
    /// (`aclrtMemGetAllocationGranularity`, recommended).
    #[doc(alias = "aclrtMemGetAllocationGranularity")]
    pub fn granularity(&self) -> Result<Granularity<'id>> {
        ffi::make_current(self.raw())?;
        let device = ffi::current_device()?;
        let bytes = ffi::vmm::granularity(device)?;
        if bytes == 0 {
            return Err(Error::InvalidAllocationSize {
                len: 0,
                elem_size: 0,
            });
        }
        Ok(Granularity {
            bytes,
            _brand: PhantomData,
        })
    }

    /// Reserve a virtual address range of `size` (`aclrtReserveMemAddress`).
    #[doc(alias = "aclrtReserveMemAddress")]
    pub fn reserve(&self, size: Granules<'id>) -> Result<Reservation<'_, 'id>> {
        ffi::make_current(self.raw())?;
        let start = ffi::vmm::reserve(size.bytes())?;
        ffi::live::child_created(start.as_ptr() as usize, self.raw());
        Ok(Reservation {
            start,
            size,
            mapped: Mutex::new(vec![false; size.count]),
            ctx: self.raw(),
            _ctx: PhantomData,
        })
    }

    /// Allocate `size` of physical memory on this context's device
    /// (`aclrtMallocPhysical`, pinned, huge pages).
    #[doc(alias = "aclrtMallocPhysical")]
    pub fn alloc_physical(&self, size: Granules<'id>) -> Result<PhysicalMem<'_, 'id>> {
        ffi::make_current(self.raw())?;
        let device = ffi::current_device()?;
        let handle = ffi::vmm::malloc_physical(device, size.bytes())?;
        ffi::live::child_created(handle.as_ptr() as usize, self.raw());
        Ok(PhysicalMem {
            handle,
            size,
            imported: false,
            mapped: AtomicBool::new(false),
            ctx: self.raw(),
            _ctx: PhantomData,
        })
    }

    /// Import physical memory another process exported
    /// (`aclrtMemImportFromShareableHandle`); it is freed on drop like an
    /// allocation of this process, and the exporter's memory lives on until
    /// both have freed it. `shared.granules` must not exceed what was
    /// exported: mapping more than the allocation holds is refused by the
    /// runtime.
    #[doc(alias = "aclrtMemImportFromShareableHandle")]
    ///
    /// A handle this process exported itself is refused
    /// ([`ErrorKind::InvalidParam`](crate::ErrorKind::InvalidParam)): its
    /// allocation is a [`PhysicalMem`] here already, and a second mapping of
    /// it would alias the first.
    pub fn import_physical(&self, shared: ShareableHandle) -> Result<PhysicalMem<'_, 'id>> {
        let size = self.granularity()?.granules(shared.granules)?;
        let device = ffi::current_device()?;
        // Held over the import, so no export of this process makes the
        // handle meanwhile.
        let list = crate::rule::exports::shareable();
        if list.contains(&shared.handle) {
            return Err(ffi::acl_error(
                aclrt_sys::ACL_ERROR_INVALID_PARAM,
                "aclrtMemImportFromShareableHandle",
            ));
        }
        let handle = ffi::vmm::import(shared.handle, device)?;
        drop(list);
        ffi::live::child_created(handle.as_ptr() as usize, self.raw());
        Ok(PhysicalMem {
            handle,
            size,
            imported: true,
            mapped: AtomicBool::new(false),
            ctx: self.raw(),
            _ctx: PhantomData,
        })
    }
}

impl<'ctx, 'id> Reservation<'ctx, 'id> {
    /// The size of the range.
    pub fn size(&self) -> Granules<'id> {
        self.size
    }

    /// The start address, for diagnostics (never dereferenceable by the CPU).
    pub fn as_device_ptr(&self) -> *const c_void {
        self.start.as_ptr().cast()
    }

    /// Map `phys` at granule `at` of this range (`aclrtMapMem`), with
    /// read-write access for this context's device (`aclrtMemSetAccess`).
    /// The mapping borrows the range and `phys` until it is dropped.
    ///
    /// Errors: [`Error::OutOfRange`] if the allocation does not fit at `at`
    /// or overlaps a granule already mapped; the runtime's errors.
    pub fn map<'r, 'p>(
        &'r self,
        at: usize,
        phys: &'p mut PhysicalMem<'_, 'id>,
    ) -> Result<Mapping<'r, 'p, 'id>>
    where
        'ctx: 'r,
    {
        let bytes = self.map_piece(at, phys)?;
        let start = self.start_of(at);
        let mut m = Mapping {
            span: ffi::vmm::Span::new(start, bytes),
            pieces: vec![(at, phys.size.count)],
            end: at + phys.size.count,
            reservation: self.shorten(),
            phys: vec![phys.shorten()],
        };
        m.set_access(Access::ReadWrite)?;
        Ok(m)
    }

    /// The same reservation borrowed for the shorter `'r`.
    fn shorten<'r>(&'r self) -> &'r Reservation<'r, 'id> {
        self
    }

    fn start_of(&self, at: usize) -> Addr {
        self.start.offset(at * self.size.granule)
    }

    /// Checks and claims granules `[at, at + phys)`, then maps them.
    fn map_piece(&self, at: usize, phys: &PhysicalMem<'_, 'id>) -> Result<usize> {
        let n = phys.size.count;
        let end = at.checked_add(n).filter(|&e| e <= self.size.count);
        let Some(end) = end else {
            return Err(Error::OutOfRange {
                start: at,
                end: at.saturating_add(n),
                len: self.size.count,
            });
        };
        {
            let mut mapped = lock(&self.mapped, Rank::VmmMapped);
            if mapped[at..end].iter().any(|&m| m) {
                return Err(Error::OutOfRange {
                    start: at,
                    end,
                    len: self.size.count,
                });
            }
            mapped[at..end].iter_mut().for_each(|m| *m = true);
        }
        let result = ffi::make_current(self.ctx)
            .and_then(|()| ffi::vmm::map(self.start_of(at), phys.size.bytes(), phys.handle));
        if let Err(e) = result {
            self.unclaim(at, n);
            return Err(e);
        }
        phys.mapped.store(true, Ordering::Release);
        Ok(phys.size.bytes())
    }

    /// How many granules are mapped (by mappings leaked, when the range is
    /// no longer borrowed).
    fn mapped_granules(&self) -> usize {
        let mapped = lock(&self.mapped, Rank::VmmMapped);
        mapped.iter().filter(|&&m| m).count()
    }

    fn unclaim(&self, at: usize, n: usize) {
        let mut mapped = lock(&self.mapped, Rank::VmmMapped);
        mapped[at..at + n].iter_mut().for_each(|m| *m = false);
    }

    /// Release the range (`aclrtReleaseMemAddress`), reporting the error
    /// `Drop` has to swallow.
    ///
    /// Errors: [`Error::LiveChildren`] (nothing called) if a leaked
    /// [`Mapping`] still lies in it; the runtime's errors.
    pub fn release(self) -> Result<()> {
        let mut this = core::mem::ManuallyDrop::new(self);
        let live = this.mapped_granules();
        // The bookkeeping goes whatever happens to the range.
        drop(core::mem::take(
            this.mapped.get_mut().unwrap_or_else(|e| e.into_inner()),
        ));
        if live > 0 {
            return Err(Error::LiveChildren {
                function: "aclrtReleaseMemAddress",
                live,
            });
        }
        ffi::make_current(this.ctx)?;
        ffi::vmm::release(this.start)?;
        ffi::live::child_released(this.start.as_ptr() as usize);
        Ok(())
    }
}

impl Drop for Reservation<'_, '_> {
    fn drop(&mut self) {
        if self.mapped_granules() > 0 {
            // A leaked mapping still lies in it: leaked with it.
            return;
        }
        let _ = ffi::make_current(self.ctx);
        if ffi::vmm::release(self.start).is_ok() {
            ffi::live::child_released(self.start.as_ptr() as usize);
        }
    }
}

impl<'ctx, 'id> PhysicalMem<'ctx, 'id> {
    /// The same allocation borrowed for the shorter `'p`.
    fn shorten<'p>(&'p self) -> &'p PhysicalMem<'p, 'id> {
        self
    }

    /// Its size.
    pub fn size(&self) -> Granules<'id> {
        self.size
    }

    /// Export it for the processes `pids` (`aclrtMemExportToShareableHandle`,
    /// `aclrtMemSetPidToShareableHandle`): they import it with
    /// [`Context::import_physical`]. Only the owner exports: an allocation
    /// imported from another process is refused.
    ///
    /// Errors: [`Error::Acl`] with [`ErrorKind::InvalidParam`](crate::ErrorKind::InvalidParam)
    /// for an imported allocation, or the runtime's errors.
    #[doc(alias = "aclrtMemExportToShareableHandle")]
    #[doc(alias = "aclrtMemSetPidToShareableHandle")]
    pub fn export(&self, pids: &[u32]) -> Result<ShareableHandle> {
        if self.imported {
            return Err(ffi::acl_error(
                aclrt_sys::ACL_ERROR_INVALID_PARAM,
                "aclrtMemExportToShareableHandle",
            ));
        }
        ffi::make_current(self.ctx)?;
        // Held from the handle's making to its entry, so no import of this
        // process slips in between.
        let mut list = crate::rule::exports::shareable();
        let handle = ffi::vmm::export(self.handle)?;
        list.push(handle);
        drop(list);
        let pids = pids_of(pids, "aclrtMemSetPidToShareableHandle")?;
        ffi::vmm::set_pids(handle, &pids)?;
        Ok(ShareableHandle {
            handle,
            granules: self.size.count,
        })
    }

    /// Free it (`aclrtFreePhysical`), reporting the error `Drop` has to
    /// swallow.
    ///
    /// Errors: [`Error::LiveChildren`] (nothing called) if a leaked
    /// [`Mapping`] still maps it; the runtime's errors.
    pub fn free(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        if this.mapped.load(Ordering::Acquire) {
            return Err(Error::LiveChildren {
                function: "aclrtFreePhysical",
                live: 1,
            });
        }
        ffi::make_current(this.ctx)?;
        ffi::vmm::free_physical(this.handle)?;
        ffi::live::child_released(this.handle.as_ptr() as usize);
        Ok(())
    }
}

impl Drop for PhysicalMem<'_, '_> {
    fn drop(&mut self) {
        if *self.mapped.get_mut() {
            // A leaked mapping still maps it: leaked with it.
            return;
        }
        let _ = ffi::make_current(self.ctx);
        if ffi::vmm::free_physical(self.handle).is_ok() {
            ffi::live::child_released(self.handle.as_ptr() as usize);
        }
    }
}

/// Process ids as the runtime takes them; one it cannot take is refused
/// as `function`'s invalid parameter.
pub(crate) fn pids_of(pids: &[u32], function: &'static str) -> Result<Vec<i32>> {
    pids.iter()
        .map(|&p| {
            i32::try_from(p)
                .map_err(|_| ffi::acl_error(aclrt_sys::ACL_ERROR_INVALID_PARAM, function))
        })
        .collect()
}

impl<'r, 'p, 'id> Mapping<'r, 'p, 'id> {
    /// Its size in bytes.
    pub fn bytes(&self) -> usize {
        self.span.bytes()
    }

    /// The start address, for diagnostics (never dereferenceable by the CPU).
    pub fn as_device_ptr(&self) -> *const c_void {
        self.span.start().as_ptr().cast()
    }

    /// Map `phys` right after the end of this mapping (`aclrtMapMem`): the
    /// mapping grows in place, its bytes so far stay where they are (no
    /// copy), and a view made afterwards covers the new bytes too.
    ///
    /// Errors: [`Error::OutOfRange`] past the reservation's end or over a
    /// granule already mapped; the runtime's errors.
    pub fn grow(&mut self, phys: &'p mut PhysicalMem<'_, 'id>) -> Result<()> {
        let at = self.end;
        let bytes = self.reservation.map_piece(at, phys)?;
        self.pieces.push((at, phys.size.count));
        self.phys.push(phys.shorten());
        self.end = at + phys.size.count;
        let old = self.span.bytes();
        self.span.grow(bytes);
        let device = ffi::current_device()?;
        ffi::vmm::set_access(self.span.at(old), bytes, device, Access::ReadWrite.to_raw())
    }

    /// Set the access of this context's device to the whole mapping
    /// (`aclrtMemSetAccess`).
    #[doc(alias = "aclrtMemSetAccess")]
    pub fn set_access(&mut self, access: Access) -> Result<()> {
        ffi::make_current(self.reservation.ctx)?;
        let device = ffi::current_device()?;
        ffi::vmm::set_access(
            self.span.start(),
            self.span.bytes(),
            device,
            access.to_raw(),
        )
    }

    /// The access set at its start (`aclrtMemGetAccess`).
    #[doc(alias = "aclrtMemGetAccess")]
    pub fn access(&self) -> Result<Access> {
        ffi::make_current(self.reservation.ctx)?;
        ffi::vmm::get_access(self.span.start()).map(Access::from_raw)
    }

    /// The mapped bytes as `len()` elements of `T` (a trailing part smaller
    /// than a `T` is left out), readable wherever a view of a
    /// [`DeviceBuffer`](crate::DeviceBuffer) is.
    pub fn view<T: DeviceRepr>(&self) -> DeviceView<'_, 'id, T> {
        DeviceView::from_mapped(self.span.mem())
    }

    /// As [`view`](Self::view), writable.
    pub fn view_mut<T: DeviceRepr>(&mut self) -> DeviceViewMut<'_, 'id, T> {
        DeviceViewMut::from_mapped(self.span.mem_mut())
    }
}

impl Mapping<'_, '_, '_> {
    /// Unmap every piece (`aclrtUnmapMem`), reporting the first error `Drop`
    /// has to swallow. A piece whose unmap failed stays claimed: its range
    /// and allocation are then never released (leaked, nothing worse).
    #[doc(alias = "aclrtUnmapMem")]
    pub fn unmap(self) -> Result<()> {
        let mut this = core::mem::ManuallyDrop::new(self);
        let result = this.unmap_all();
        drop(core::mem::take(&mut this.phys));
        drop(core::mem::take(&mut this.pieces));
        result
    }

    fn unmap_all(&mut self) -> Result<()> {
        let mut first = ffi::make_current(self.reservation.ctx);
        for (&(at, n), phys) in self.pieces.iter().zip(&self.phys) {
            match ffi::vmm::unmap(self.reservation.start_of(at)) {
                Ok(()) => {
                    self.reservation.unclaim(at, n);
                    phys.mapped.store(false, Ordering::Release);
                }
                Err(e) => {
                    if first.is_ok() {
                        first = Err(e);
                    }
                }
            }
        }
        self.pieces.clear();
        first
    }
}

impl Drop for Mapping<'_, '_, '_> {
    fn drop(&mut self) {
        let _ = self.unmap_all();
    }
}
