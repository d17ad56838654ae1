//! Allocators registered on streams (`acl_rt_allocator.h`): a descriptor
//! collects an allocator object and its callbacks; registering copies them
//! under a stream; `aclrtAllocatorGetByStream` hands them back.
//!
//! This is the ACL layer's own registry (`src/acl/aclrt_impl/allocator.cpp`:
//! a process-wide map guarded by its own lock, keyed by the stream pointer;
//! the runtime is not asked about the stream, and the registry outlives
//! `aclFinalize`). Every refusal is the ACL layer's 100000, never the
//! thread's last error. The runtime itself allocates nothing through a
//! registered allocator (its users are the operator libraries above it);
//! the simulator keeps the registration exactly, so a program that
//! registers an allocator and calls it back through
//! `aclrtAllocatorGetByStream` runs as on the device.
//!
//! Descriptors are opaque handles of this registry (the real ones are heap
//! objects of the ACL layer): a destroyed descriptor is a use after free on
//! the device, here 100000 and a `UseAfterFree` violation.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::diag::{Error, Res, param};
use crate::ffi;
use crate::model::ViolationKind;
use crate::sync::lock;

/// The callbacks and object of one descriptor (or of a registration, which
/// copies them).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Desc {
    /// The allocator object (an application pointer, address only).
    pub obj: usize,
    pub alloc: ffi::aclrtAllocatorAllocFunc,
    pub free: ffi::aclrtAllocatorFreeFunc,
    pub alloc_advise: ffi::aclrtAllocatorAllocAdviseFunc,
    pub get_addr: ffi::aclrtAllocatorGetAddrFromBlockFunc,
}

struct Registry {
    descs: BTreeMap<usize, Desc>,
    /// stream handle -> (descriptor handle, the copy made at registration)
    streams: BTreeMap<usize, (usize, Desc)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    descs: BTreeMap::new(),
    streams: BTreeMap::new(),
});

/// Descriptor handles: never reused, never 0, never a handle of the
/// runtime's tables (low bits 0xA).
static NEXT_DESC: AtomicUsize = AtomicUsize::new(1);
const DESC_TAG: usize = 0xA;

fn refuse<T>(e: Error) -> Res<T> {
    Err(e.answered_by_acl())
}

/// `aclrtAllocatorCreateDescImpl`: a new, empty descriptor.
pub(crate) fn create_desc() -> usize {
    let h = (NEXT_DESC.fetch_add(1, Ordering::Relaxed) << 4) | DESC_TAG;
    lock(&REGISTRY).descs.insert(h, Desc::default());
    h
}

/// The refusal of a descriptor handle that is not live.
fn bad_desc(h: usize) -> Error {
    let issued =
        h & 0xF == DESC_TAG && (h >> 4) != 0 && (h >> 4) < NEXT_DESC.load(Ordering::Relaxed);
    if issued {
        Error::violation(
            ViolationKind::UseAfterFree,
            ffi::ACL_ERROR_INVALID_PARAM,
            format!(
                "allocator descriptor {h:#x} was already destroyed (aclrtAllocatorDestroyDesc); \
                 on the device this is a use after free"
            ),
        )
        .on(h)
    } else {
        Error::violation(
            ViolationKind::InvalidHandle,
            ffi::ACL_ERROR_INVALID_PARAM,
            format!("{h:#x} is not an allocator descriptor of aclrtAllocatorCreateDesc"),
        )
        .on(h)
    }
}

/// `aclrtAllocatorDestroyDescImpl`: NULL 100000.
pub(crate) fn destroy_desc(h: usize) -> Res<()> {
    if h == 0 {
        return refuse(param("allocatorDesc is NULL"));
    }
    if lock(&REGISTRY).descs.remove(&h).is_none() {
        return refuse(bad_desc(h));
    }
    Ok(())
}

/// The `aclrtAllocatorSet…ToDescImpl` functions: NULL descriptor, then a
/// NULL value (`what`), 100000; `set` stores the value.
pub(crate) fn set(h: usize, null: bool, what: &str, set: impl FnOnce(&mut Desc)) -> Res<()> {
    if h == 0 {
        return refuse(param("allocatorDesc is NULL"));
    }
    if null {
        return refuse(param(format!("{what} is NULL")));
    }
    let mut reg = lock(&REGISTRY);
    let Some(d) = reg.descs.get_mut(&h) else {
        drop(reg);
        return refuse(bad_desc(h));
    };
    set(d);
    Ok(())
}

/// `aclrtAllocatorRegisterImpl`: NULL stream, NULL descriptor, then a
/// descriptor without object, alloc, free or get-address function: 100000
/// (the advise function is optional). Registering again replaces.
pub(crate) fn register(stream: usize, h: usize) -> Res<()> {
    if stream == 0 {
        return refuse(param(
            "stream is NULL: an allocator is registered on an explicit stream",
        ));
    }
    if h == 0 {
        return refuse(param("allocatorDesc is NULL"));
    }
    let mut reg = lock(&REGISTRY);
    let Some(d) = reg.descs.get(&h).copied() else {
        drop(reg);
        return refuse(bad_desc(h));
    };
    let missing = [
        (d.obj == 0, "allocatorDesc->obj"),
        (d.alloc.is_none(), "allocatorDesc->allocFunc"),
        (d.free.is_none(), "allocatorDesc->freeFunc"),
        (d.get_addr.is_none(), "allocatorDesc->getAddrFromBlockFunc"),
    ];
    if let Some((_, what)) = missing.iter().find(|(m, _)| *m) {
        return refuse(param(format!("{what} is NULL")));
    }
    reg.streams.insert(stream, (h, d));
    Ok(())
}

/// `aclrtAllocatorGetByStreamImpl`: NULL descriptor output, then NULL
/// stream, then a stream without registration: 100000. Returns the
/// registered descriptor handle and the copy made at registration.
pub(crate) fn get_by_stream(stream: usize, desc_null: bool) -> Res<(usize, Desc)> {
    if desc_null {
        return refuse(param("allocatorDesc is NULL"));
    }
    if stream == 0 {
        return refuse(param("stream is NULL"));
    }
    match lock(&REGISTRY).streams.get(&stream) {
        Some(r) => Ok(*r),
        None => refuse(param(format!(
            "stream {stream:#x} is not registered with any allocator"
        ))),
    }
}

/// `aclrtAllocatorUnregisterImpl`: NULL stream 100000; a stream without
/// registration is fine.
pub(crate) fn unregister(stream: usize) -> Res<()> {
    if stream == 0 {
        return refuse(param("stream is NULL"));
    }
    lock(&REGISTRY).streams.remove(&stream);
    Ok(())
}
