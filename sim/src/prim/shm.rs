//! Shared mappings of files: the memory two processes of the simulator
//! share for IPC memory (`aclrtIpcMemGetExportKey` /
//! `aclrtIpcMemImportByKey`). On Linux x86_64 and aarch64 a file of the
//! shared-memory file system mapped `MAP_SHARED` into each process;
//! elsewhere (and under Miri) there is none, and the callers answer that
//! the feature is not available.

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri)
))]
mod os {
    use core::ffi::{c_int, c_void};
    use std::fs::OpenOptions;
    use std::os::fd::AsRawFd;
    use std::path::Path;

    const PROT_READ: c_int = 0x1;
    const PROT_WRITE: c_int = 0x2;
    const MAP_SHARED: c_int = 0x01;

    // SAFETY: the C library's own prototypes on the 64-bit Linux targets
    // this module is compiled for (`sys/mman.h`): `size_t` is `usize`,
    // `int` is `c_int`, `off_t` is `i64`. Neither is `safe`: both act on
    // memory, and each call site states why its arguments are sound.
    unsafe extern "C" {
        fn mmap(
            addr: *mut c_void,
            len: usize,
            prot: c_int,
            flags: c_int,
            fd: c_int,
            off: i64,
        ) -> *mut c_void;
        fn munmap(addr: *mut c_void, len: usize) -> c_int;
    }

    pub(crate) fn map(path: &Path, len: usize, create: bool) -> Option<*mut u8> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(create)
            .open(path)
            .ok()?;
        if create {
            file.set_len(u64::try_from(len).ok()?).ok()?;
        } else if file.metadata().ok()?.len() < u64::try_from(len).ok()? {
            return None;
        }
        // SAFETY: a new shared mapping of an open, readable and writable
        // file at an address the kernel chooses touches no existing memory;
        // the file is at least `len` bytes long (checked or set above), so
        // every mapped page is backed. The descriptor may be closed after
        // the call (the mapping keeps the file).
        let p = unsafe {
            mmap(
                core::ptr::null_mut(),
                len,
                PROT_READ | PROT_WRITE,
                MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if p.addr() == usize::MAX || p.is_null() {
            return None;
        }
        Some(p.cast())
    }

    /// # Safety
    /// `[p, p + len)` is a mapping made by [`map`] with this `len`, which
    /// nothing accesses any more.
    pub(crate) unsafe fn unmap(p: *mut u8, len: usize) {
        // SAFETY: the contract of this function.
        unsafe { munmap(p.cast(), len) };
    }
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64"),
    not(miri)
)))]
mod os {
    use std::path::Path;

    pub(crate) fn map(_path: &Path, _len: usize, _create: bool) -> Option<*mut u8> {
        None
    }

    /// # Safety
    /// Never called: [`map`] makes no mapping here.
    pub(crate) unsafe fn unmap(_p: *mut u8, _len: usize) {}
}

pub(crate) use os::{map, unmap};

/// The directory of the shared files (the shared-memory file system where
/// there is one).
pub(crate) fn dir() -> std::path::PathBuf {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}
