//! The simulator's own address range: every runtime allocation (device
//! memory, `aclrtMallocHost` memory, managed memory) is carved out of large
//! reservations that hold nothing else.
//!
//! Because the simulator owns every byte of these reservations, it can tell
//! every address in them: a pointer that falls into a reservation but not
//! into a live (or quarantined) block cannot be application memory, so the
//! allocation table refuses it instead of treating it as the application's
//! own pageable memory (which it would read and write). Each block is
//! followed by at least one unused guard page inside the reservation, so the
//! classic off-by-one (`ptr + size`, or any length overrunning a block)
//! always lands in a gap the simulator recognises, never in another block
//! and never in the simulator's heap.
//!
//! On Linux x86_64 and aarch64 the reservations are anonymous `mmap`
//! mappings (`MAP_NORESERVE`: untouched pages cost nothing); elsewhere
//! (other architectures, whose flag values differ, other systems, and
//! Miri) they are large zeroed heap allocations. Reservations are never released, so an address
//! of the range stays recognisable for the life of the process. Freed
//! blocks return to a first-fit free list (their pages are zeroed, or handed
//! back to the kernel for large blocks) and are reused only after the
//! allocation table's quarantine let go of them.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The granularity of blocks and gaps (a page on every Linux target this
/// runs on; only the zeroing strategy depends on it being the real page
/// size).
pub(crate) const PAGE: usize = 4096;
/// The unused bytes after each block.
const GUARD: usize = PAGE;
/// The size of one reservation (larger requests get one of their own).
#[cfg(not(miri))]
const CHUNK: usize = 1 << 30;
#[cfg(miri)]
const CHUNK: usize = 4 << 20;
/// At most this many reservations (4096 GiB of address space at the
/// default chunk size: far more than any configuration's device memory).
const MAX_CHUNKS: usize = 4096;
/// Blocks of at least this many bytes are zeroed by handing their pages
/// back to the kernel rather than by writing zeros.
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri)
))]
const MADVISE_MIN: usize = 64 << 10;

/// The reservations, readable without a lock: `CHUNK_COUNT` entries of
/// `(start, len)` are published (each written before the count is raised).
static CHUNK_START: [AtomicUsize; MAX_CHUNKS] = [const { AtomicUsize::new(0) }; MAX_CHUNKS];
static CHUNK_LEN: [AtomicUsize; MAX_CHUNKS] = [const { AtomicUsize::new(0) }; MAX_CHUNKS];
static CHUNK_COUNT: AtomicUsize = AtomicUsize::new(0);

/// Free ranges of all reservations: start -> length (coalesced).
static FREE: Mutex<BTreeMap<usize, usize>> = Mutex::new(BTreeMap::new());

fn round_up(n: usize, to: usize) -> Option<usize> {
    n.checked_add(to - 1).map(|v| v & !(to - 1))
}

/// Whether `[addr, addr + len)` (at least `addr` itself) touches one of the
/// simulator's reservations. Lock-free.
pub(crate) fn touches(addr: usize, len: usize) -> bool {
    let end = addr.saturating_add(len.max(1));
    let n = CHUNK_COUNT.load(Ordering::Acquire);
    (0..n).any(|i| {
        let s = CHUNK_START[i].load(Ordering::Relaxed);
        let l = CHUNK_LEN[i].load(Ordering::Relaxed);
        addr < s + l && s < end
    })
}

/// Takes `footprint` bytes (a multiple of [`PAGE`]) from the free list,
/// first fit.
fn take(free: &mut BTreeMap<usize, usize>, footprint: usize) -> Option<usize> {
    let (&start, &len) = free.iter().find(|&(_, &len)| len >= footprint)?;
    free.remove(&start);
    if len > footprint {
        free.insert(start + footprint, len - footprint);
    }
    Some(start)
}

/// Returns `[start, start + len)` to the free list, merging neighbours.
fn give_back(free: &mut BTreeMap<usize, usize>, mut start: usize, mut len: usize) {
    if let Some((&ps, &pl)) = free.range(..start).next_back() {
        if ps + pl == start {
            free.remove(&ps);
            start = ps;
            len += pl;
        }
    }
    if let Some(&nl) = free.get(&(start + len)) {
        free.remove(&(start + len));
        len += nl;
    }
    free.insert(start, len);
}

/// A new reservation of at least `min` bytes, published and added to the
/// free list; `false` when none can be had.
fn reserve(free: &mut BTreeMap<usize, usize>, min: usize) -> bool {
    let Some(len) = round_up(min.max(CHUNK), CHUNK) else {
        return false;
    };
    let n = CHUNK_COUNT.load(Ordering::Acquire);
    if n >= MAX_CHUNKS {
        return false;
    }
    let Some(start) = os::reserve(len) else {
        return false;
    };
    CHUNK_START[n].store(start, Ordering::Relaxed);
    CHUNK_LEN[n].store(len, Ordering::Relaxed);
    CHUNK_COUNT.store(n + 1, Ordering::Release);
    give_back(free, start, len);
    true
}

/// Allocates `len` zero-filled bytes, page aligned, followed by a guard gap:
/// the block's start address (with the provenance of its reservation).
/// `None` when the size cannot be represented or no reservation can be had.
pub(crate) fn alloc(len: usize) -> Option<*mut u8> {
    let footprint = round_up(len.max(1), PAGE)?.checked_add(GUARD)?;
    let mut free = super::lock_leaf(&FREE);
    let start = match take(&mut free, footprint) {
        Some(s) => s,
        None => {
            if !reserve(&mut free, footprint) {
                return None;
            }
            take(&mut free, footprint)?
        }
    };
    Some(os::pointer(start))
}

/// Returns the block of `len` bytes at `ptr` (from [`alloc`]) to the free
/// list, zeroing it first.
///
/// # Safety
/// `ptr` was returned by [`alloc`]`(len)` and is released once; nothing
/// accesses the block any more.
pub(crate) unsafe fn free(ptr: *mut u8, len: usize) {
    let Some(used) = round_up(len.max(1), PAGE) else {
        return;
    };
    // SAFETY: the block `[ptr, ptr + used)` lies inside a reservation (it
    // was carved from one with at least `used + GUARD` bytes), is writable,
    // and nothing else accesses it (this function's contract).
    unsafe { os::zero(ptr, used) };
    let mut free = super::lock_leaf(&FREE);
    give_back(&mut free, ptr.addr(), used + GUARD);
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri)
))]
mod os {
    use core::ffi::{c_int, c_void};

    // The kernel's values (Linux UAPI headers; the C libraries, glibc and
    // musl, pass them through unchanged). They hold on x86_64 and aarch64,
    // the only architectures this module is compiled for: some differ on
    // others (MAP_ANONYMOUS is 0x800 on MIPS, MAP_NORESERVE 0x40 on
    // PowerPC and SPARC, MADV_DONTNEED 6 on Alpha).

    /// `asm-generic/mman-common.h`.
    const PROT_READ: c_int = 0x1;
    /// `asm-generic/mman-common.h`.
    const PROT_WRITE: c_int = 0x2;
    /// `linux/mman.h` (`asm-generic/mman-common.h` in older kernels).
    const MAP_PRIVATE: c_int = 0x02;
    /// `asm-generic/mman-common.h`.
    const MAP_ANONYMOUS: c_int = 0x20;
    /// `asm-generic/mman.h` (included by x86's and arm64's `asm/mman.h`).
    const MAP_NORESERVE: c_int = 0x4000;
    /// `asm-generic/mman-common.h`.
    const MADV_DONTNEED: c_int = 4;

    // SAFETY: these are the C library's own prototypes on the 64-bit Linux
    // targets this module is compiled for (glibc and musl, `sys/mman.h` and
    // `unistd.h`): `size_t` is `usize`, `int` is `c_int`, `long` is
    // `c_long`, and `off_t` is 64 bits (`i64`) there, so each call passes
    // and receives exactly what the C function expects. None is marked
    // `safe`: `mmap` and `madvise` act on memory, and each call site states
    // why its arguments are sound.
    unsafe extern "C" {
        fn mmap(
            addr: *mut c_void,
            len: usize,
            prot: c_int,
            flags: c_int,
            fd: c_int,
            off: i64,
        ) -> *mut c_void;
        fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
        fn sysconf(name: c_int) -> core::ffi::c_long;
    }

    /// `_SC_PAGESIZE`: not a kernel value but the C library's (glibc's
    /// `bits/confname.h` and musl's `unistd.h`; the same on every Linux
    /// architecture).
    const SC_PAGESIZE: c_int = 30;

    /// The kernel's page size (4 KiB, or 16/64 KiB on some arm64 kernels).
    fn kernel_page() -> usize {
        static PAGE_SIZE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let mut p = PAGE_SIZE.load(std::sync::atomic::Ordering::Relaxed);
        if p == 0 {
            // SAFETY: sysconf has no preconditions.
            let v = unsafe { sysconf(SC_PAGESIZE) };
            p = if v > 0 { v as usize } else { usize::MAX };
            PAGE_SIZE.store(p, std::sync::atomic::Ordering::Relaxed);
        }
        p
    }

    /// The first reservation's base pointer: every block pointer is derived
    /// from a reservation's base (strict provenance is not needed for
    /// mmap'd memory, but the pointers keep the mapping's).
    static BASES: std::sync::Mutex<Vec<(usize, usize, super::SendPtr)>> =
        std::sync::Mutex::new(Vec::new());

    pub(super) fn reserve(len: usize) -> Option<usize> {
        // The standard reservation skips the kernel's overcommit check
        // (its untouched pages cost nothing); a larger one, made for one
        // large block, keeps it, so that an absurd size fails here as it
        // did with the C allocator, instead of succeeding and exhausting
        // memory when it is touched.
        let noreserve = if len <= super::CHUNK {
            MAP_NORESERVE
        } else {
            0
        };
        // SAFETY: an anonymous private mapping at an address the kernel
        // chooses touches no existing memory; the arguments are valid
        // (fd -1 and offset 0 for MAP_ANONYMOUS).
        let p = unsafe {
            mmap(
                core::ptr::null_mut(),
                len,
                PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | noreserve,
                -1,
                0,
            )
        };
        if p.addr() == usize::MAX || p.is_null() {
            return None;
        }
        super::super::lock_leaf(&BASES).push((p.addr(), len, super::SendPtr(p.cast())));
        Some(p.addr())
    }

    pub(super) fn pointer(addr: usize) -> *mut u8 {
        let bases = super::super::lock_leaf(&BASES);
        let (s, _, base) = bases
            .iter()
            .find(|(s, l, _)| (*s..*s + *l).contains(&addr))
            .expect("an arena address lies in a reservation");
        base.0.wrapping_add(addr - s)
    }

    /// # Safety
    /// `[p, p + len)` is writable memory of a reservation that nothing else
    /// accesses now; `p` is page aligned and `len` a multiple of a page.
    pub(super) unsafe fn zero(p: *mut u8, len: usize) {
        // Only whole kernel pages may be handed back: with pages larger
        // than the arena's 4 KiB granularity, the kernel would round the
        // range up and discard a neighbour block's bytes too.
        let kp = kernel_page();
        if len >= super::MADVISE_MIN && p.addr() % kp == 0 && len % kp == 0 {
            // SAFETY: the range is a page-aligned part of a private
            // anonymous mapping nobody accesses (contract); MADV_DONTNEED
            // makes its next access read zero pages.
            if unsafe { madvise(p.cast(), len, MADV_DONTNEED) } == 0 {
                return;
            }
        }
        // SAFETY: as above, the range is writable and unshared.
        unsafe { core::ptr::write_bytes(p, 0, len) };
    }
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri)
)))]
mod os {
    use std::alloc::{self, Layout};

    static BASES: std::sync::Mutex<Vec<(usize, usize, super::SendPtr)>> =
        std::sync::Mutex::new(Vec::new());

    /// A zeroed heap allocation, never freed.
    pub(super) fn reserve(len: usize) -> Option<usize> {
        let layout = Layout::from_size_align(len, super::PAGE).ok()?;
        // SAFETY: `layout` has a non-zero size and a power-of-two alignment.
        let p = unsafe { alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return None;
        }
        super::super::lock_leaf(&BASES).push((p.addr(), len, super::SendPtr(p)));
        Some(p.addr())
    }

    pub(super) fn pointer(addr: usize) -> *mut u8 {
        let bases = super::super::lock_leaf(&BASES);
        let (s, _, base) = bases
            .iter()
            .find(|(s, l, _)| (*s..*s + *l).contains(&addr))
            .expect("an arena address lies in a reservation");
        base.0.wrapping_add(addr - s)
    }

    /// # Safety
    /// `[p, p + len)` is writable memory of a reservation that nothing else
    /// accesses now.
    pub(super) unsafe fn zero(p: *mut u8, len: usize) {
        // SAFETY: the range is writable and unshared (contract).
        unsafe { core::ptr::write_bytes(p, 0, len) };
    }
}

/// A reservation's base pointer, kept to derive block pointers from.
struct SendPtr(*mut u8);
// SAFETY: the pointer is only used to derive addresses inside a reservation
// that lives for the rest of the process; it carries no ownership.
unsafe impl Send for SendPtr {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_separated_by_gaps_and_recognised() {
        let a = alloc(4096).unwrap();
        let b = alloc(100).unwrap();
        assert_eq!(a.addr() % PAGE, 0);
        assert!(touches(a.addr(), 1) && touches(b.addr() + 100, 1));
        // The gap after `a` is never inside `b`.
        assert!(b.addr() >= a.addr() + 4096 + GUARD || b.addr() + 100 <= a.addr());
        // SAFETY: both came from `alloc` and are released once.
        unsafe {
            free(a, 4096);
            free(b, 100);
        }
        let x = 0u8;
        assert!(!touches(core::ptr::addr_of!(x).addr(), 1));
    }

    #[test]
    fn freed_blocks_are_zero_when_reused() {
        for len in [8192, 256 << 10] {
            freed_block_is_zero_when_reused(len);
        }
    }

    fn freed_block_is_zero_when_reused(len: usize) {
        let a = alloc(len).unwrap();
        // SAFETY: `a` is a fresh block of len writable bytes.
        unsafe { core::ptr::write_bytes(a, 0xAB, len) };
        // SAFETY: from `alloc`, released once.
        unsafe { free(a, len) };
        let b = alloc(len).unwrap();
        // SAFETY: `b` is a fresh block of len readable bytes.
        let all_zero = unsafe { core::slice::from_raw_parts(b, len) }
            .iter()
            .all(|&v| v == 0);
        assert!(all_zero);
        // SAFETY: from `alloc`, released once.
        unsafe { free(b, len) };
    }
}
