//! Memory: allocation and release, and the checked copies and fills (sync
//! and async, 1-D and 2-D), on the allocation table of `rt::mem`.

use std::sync::Arc;

use crate::diag::{Error, Res, param, require, rt_param};
use crate::ffi;
use crate::model::{RunMode, ViolationKind};
use crate::prim::{self, HeapBlock, Out, UserMem};
use crate::rt::access::{Access, Place};
use crate::rt::exec::{Op, StreamShared};
use crate::rt::mem::{AllocKind, Allocation};
use crate::rt::{Runtime, rt};

/// Which `aclrtMalloc*` variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MallocFn {
    Malloc,
    Align32,
    Cached,
    Host,
}

const GIB: usize = 1 << 30;

/// The bytes a request costs: `ALIGN_UP(size, 32) + 32` (`aclrtMalloc`,
/// `aclrtMallocCached`), `ALIGN_UP(size, 32)` (`aclrtMallocAlign32`,
/// `aclrtMallocHost`), whole GiB for the HUGE1G policies.
pub(crate) fn padded_size(size: usize, f: MallocFn, policy: u32) -> Option<usize> {
    let huge1g = matches!(
        policy,
        ffi::ACL_MEM_MALLOC_HUGE1G_ONLY | ffi::ACL_MEM_MALLOC_HUGE1G_ONLY_P2P
    ) && f != MallocFn::Host;
    if huge1g {
        return size.checked_add(GIB - 1).map(|s| s / GIB * GIB);
    }
    let aligned = size.checked_add(31)? / 32 * 32;
    match f {
        MallocFn::Malloc | MallocFn::Cached => aligned.checked_add(32),
        MallocFn::Align32 | MallocFn::Host => Some(aligned),
    }
}

/// `aclrtMalloc`, `aclrtMallocAlign32`, `aclrtMallocCached`,
/// `aclrtMallocHost`, I (`DevMalloc`, `HostMalloc`): the ACL layer's checks
/// were made before (`acl_layer::malloc`); those below are its own again
/// (the implementation does not trust its caller).
pub(crate) fn malloc(
    out: Out<*mut std::ffi::c_void>,
    size: usize,
    policy: u32,
    f: MallocFn,
) -> Res<()> {
    let what = if f == MallocFn::Host {
        "hostPtr"
    } else {
        "devPtr"
    };
    require(!out.is_null(), || format!("{what} is NULL"))?;
    require(size != 0, || "size must not be 0".to_owned())?;
    let ptr = place(size, policy, f, None)?;
    out.write(ptr);
    Ok(())
}

/// Device memory the runtime allocates for itself (`DevMemAlloc`, e.g. a
/// label list), every byte set to `byte` (`MemSetSync`): charged to the
/// current context's device and freed by `aclrtFree` like any other.
pub(crate) fn alloc_device_filled(size: usize, byte: u8) -> Res<usize> {
    place(
        size,
        ffi::ACL_MEM_MALLOC_HUGE_FIRST,
        MallocFn::Malloc,
        Some(byte),
    )
    .map(|p| p.addr())
}

/// The allocation itself (the checks of the callers were made).
fn place(
    size: usize,
    policy: u32,
    f: MallocFn,
    fill_with: Option<u8>,
) -> Res<*mut std::ffi::c_void> {
    // `aclrtMallocCached` maps HUGE_FIRST, HUGE_ONLY, NORMAL_ONLY and
    // HUGE1G_ONLY to their page policies and every other value (the P2P
    // policies, unknown numbers) to the default flags: it allocates either
    // way (ACL `memory.cpp` `aclrtMallocCachedImpl`; fidelity row MEM-11).
    let Some(padded) = padded_size(size, f, policy) else {
        return Err(param(format!("size {size} overflows when padded")));
    };
    let mut rt = rt();
    let ctx = rt.current()?;
    let (ctx, device) = (ctx.handle, ctx.device);
    let on_device = f != MallocFn::Host || rt.cfg.run_mode == RunMode::Device;
    let charged = if on_device { padded as u64 } else { 0 };
    let dev = rt.device_mut(device)?;
    let free = dev.mem_total.saturating_sub(dev.mem_used);
    if charged > free {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!(
                "out of memory on device {device}: {size} bytes requested ({charged} with \
                 padding), {free} of {} bytes free",
                dev.mem_total
            ),
        ));
    }
    let Some(block) = HeapBlock::new(size) else {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!("the host allocator could not provide {size} bytes"),
        ));
    };
    if let Some(byte) = fill_with {
        block.fill_fresh(byte);
    }
    dev.mem_used += charged;
    let ptr = block.user_ptr();
    let kind = if f == MallocFn::Host {
        AllocKind::Host
    } else {
        AllocKind::Device
    };
    rt.mem.live.insert(
        block.addr(),
        Allocation {
            block,
            size,
            charged,
            device,
            ctx,
            kind,
            on_device,
        },
    );
    Ok(ptr)
}

/// `aclrtFree`, `aclrtFreeHost` and their `WithDevSync` variants, I
/// (`DevFree`, `HostFree`; the ACL layer's NULL check was made before).
pub(crate) fn free(addr: usize, kind: AllocKind, dev_sync: bool) -> Res<()> {
    let what = if kind == AllocKind::Host {
        "hostPtr"
    } else {
        "devPtr"
    };
    require(addr != 0, || format!("{what} is NULL"))?;
    if dev_sync {
        // Synchronise the allocation's device first (streams of all its
        // contexts), without holding the runtime lock.
        let streams: Vec<Arc<StreamShared>> = {
            let rt = rt();
            match rt.mem.live.get(&addr) {
                Some(a) => rt
                    .streams
                    .values()
                    .filter(|s| s.device == a.device)
                    .map(|s| s.shared.clone())
                    .collect(),
                None => Vec::new(),
            }
        };
        for s in streams {
            s.drain(None);
        }
        let device = rt().mem.live.get(&addr).map(|a| a.device);
        if let Some(device) = device {
            crate::rt::wait_forced_of_device(device);
        }
    }
    let mut rt = rt();
    let rt = &mut *rt;
    let Some(a) = rt.mem.live.get(&addr) else {
        return Err(crate::rt::mem::bad_free(&rt.mem, addr, kind));
    };
    if a.kind != kind && !(a.kind == AllocKind::Managed && kind == AllocKind::Device) {
        return Err(Error::violation(
            ViolationKind::ForeignFree,
            ffi::ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "{addr:#x} was allocated by {}; release it with {}",
                a.kind.alloc_fn(),
                a.kind.free_fn()
            ),
        ));
    }
    let holders = Arc::strong_count(&a.block) - 1;
    if holders > 0 {
        // Strict rule STRICT-FREE-IN-USE: the real runtime frees at once;
        // report mode (the default) does too (the tasks keep the block alive until
        // they are done, so they touch quarantined memory, never freed memory).
        let err = Error::violation(
            ViolationKind::ReleaseWhileInUse,
            ffi::ACL_ERROR_RT_STREAM_NOT_COMPLETE,
            format!(
                "the {}-byte block at {addr:#x} is still used by {holders} queued or running \
                 task(s); synchronize the stream before releasing it",
                a.size
            ),
        )
        .on(addr);
        let function = match (kind, dev_sync) {
            (AllocKind::Host, false) => "aclrtFreeHost",
            (AllocKind::Host, true) => "aclrtFreeHostWithDevSync",
            (_, false) => "aclrtFree",
            (_, true) => "aclrtFreeWithDevSync",
        };
        crate::diag::strict_rule(rt.cfg.strictness, function, err)?;
    }
    let Some(a) = rt.mem.live.remove(&addr) else {
        return Err(crate::rt::mem::bad_free(&rt.mem, addr, kind));
    };
    if let Ok(dev) = rt.device_mut(a.device) {
        dev.mem_used = dev.mem_used.saturating_sub(a.charged);
    }
    rt.mem.quarantine(addr, a);
    Ok(())
}

/// A memcpy kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    H2H,
    H2D,
    D2H,
    D2D,
    Default,
    H2BufD,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::H2H => "ACL_MEMCPY_HOST_TO_HOST",
            Kind::H2D => "ACL_MEMCPY_HOST_TO_DEVICE",
            Kind::D2H => "ACL_MEMCPY_DEVICE_TO_HOST",
            Kind::D2D => "ACL_MEMCPY_DEVICE_TO_DEVICE",
            Kind::Default => "ACL_MEMCPY_DEFAULT",
            Kind::H2BufD => "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
        }
    }
    fn task_name(self, two_d: bool) -> &'static str {
        match (self, two_d) {
            (Kind::H2H, false) => "memcpy H2H",
            (Kind::H2D | Kind::H2BufD, false) => "memcpy H2D",
            (Kind::D2H, false) => "memcpy D2H",
            (Kind::D2D, false) => "memcpy D2D",
            (Kind::Default, false) => "memcpy",
            (Kind::H2H, true) => "memcpy2d H2H",
            (Kind::H2D | Kind::H2BufD, true) => "memcpy2d H2D",
            (Kind::D2H, true) => "memcpy2d D2H",
            (Kind::D2D, true) => "memcpy2d D2D",
            (Kind::Default, true) => "memcpy2d",
        }
    }
}

pub(crate) fn kind_1d(kind: u32) -> Res<Kind> {
    Ok(match kind {
        ffi::ACL_MEMCPY_HOST_TO_HOST => Kind::H2H,
        ffi::ACL_MEMCPY_HOST_TO_DEVICE => Kind::H2D,
        ffi::ACL_MEMCPY_DEVICE_TO_HOST => Kind::D2H,
        ffi::ACL_MEMCPY_DEVICE_TO_DEVICE => Kind::D2D,
        ffi::ACL_MEMCPY_DEFAULT => Kind::Default,
        ffi::ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE => Kind::H2BufD,
        other => {
            return Err(param(format!(
                "kind {other} is not accepted (valid: 0..=5, ACL_MEMCPY_HOST_TO_HOST .. \
                 ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)"
            )));
        }
    })
}

fn kind_2d(kind: u32) -> Res<Kind> {
    Ok(match kind {
        ffi::ACL_MEMCPY_HOST_TO_DEVICE => Kind::H2D,
        ffi::ACL_MEMCPY_DEVICE_TO_HOST => Kind::D2H,
        ffi::ACL_MEMCPY_DEVICE_TO_DEVICE => Kind::D2D,
        ffi::ACL_MEMCPY_DEFAULT => Kind::Default,
        other => {
            return Err(param(format!(
                "kind {other} is not accepted by 2-D copies (valid: HOST_TO_DEVICE, \
                 DEVICE_TO_HOST, DEVICE_TO_DEVICE, DEFAULT)"
            )));
        }
    })
}

/// The kind rule (strict rule STRICT-KIND): in host run mode the kind must
/// match where the memory lies; in device run mode every kind is accepted.
/// The real runtime instead corrects the kind of an asynchronous copy from
/// the pointers ([`resolve`]); with [`Strictness::Report`] (the default)
/// the mismatch is recorded and the copy goes on with the corrected kind.
///
/// [`Strictness::Report`]: crate::model::Strictness::Report
fn check_kind(rt: &Runtime, call: &'static str, kind: Kind, dst: &Access, src: &Access) -> Res<()> {
    match kind_mismatch(rt.cfg.run_mode, kind, dst, src) {
        Ok(()) => Ok(()),
        Err(e) => crate::diag::strict_rule(rt.cfg.strictness, call, e),
    }
}

fn kind_mismatch(mode: RunMode, kind: Kind, dst: &Access, src: &Access) -> Res<()> {
    if mode == RunMode::Device {
        return Ok(());
    }
    let (want_src_host, want_dst_host) = match kind {
        Kind::Default => return Ok(()),
        Kind::H2H => (true, true),
        Kind::H2D | Kind::H2BufD => (true, false),
        Kind::D2H => (false, true),
        Kind::D2D => (false, false),
    };
    for (role, a, want_host) in [("src", src, want_src_host), ("dst", dst, want_dst_host)] {
        // Managed memory is accessible from both sides: every kind fits.
        if matches!(a.place, Place::Managed(_)) {
            continue;
        }
        if a.place.is_host() != want_host {
            return Err(Error::violation(
                ViolationKind::KindMismatch,
                ffi::ACL_ERROR_RT_INVALID_MEMORY_TYPE,
                format!(
                    "kind {} needs {role} in {} memory, but {role} {:#x} is {}",
                    kind.name(),
                    if want_host { "host" } else { "device" },
                    a.span.addr(),
                    a.place.describe()
                ),
            ));
        }
    }
    Ok(())
}

/// Where the real runtime's location check puts memory: runtime host
/// memory (pinned or registered), device memory, or host memory it does not
/// know (pageable application memory).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Loc {
    Host,
    Dev,
    Unreg,
}

fn loc(p: Place) -> Loc {
    match p {
        Place::Device(_) | Place::Managed(_) => Loc::Dev,
        Place::PinnedHost | Place::Registered => Loc::Host,
        Place::App => Loc::Unreg,
    }
}

/// The kind the real runtime copies with after its automatic kind
/// correction from where `src` and `dst` lie (fidelity rows COPY-KIND-*):
/// between runtime host memory and device memory the kind is forced to the
/// direction of the pointers; with pageable memory on one side the kind
/// must be one of the directions that side allows (`Err` otherwise, 107000
/// there), and `DEFAULT` takes the listed default. The staging kind
/// `HOST_TO_BUF_TO_DEVICE` is not corrected, only checked.
fn resolve(kind: Kind, src: Place, dst: Place) -> Result<Kind, ()> {
    use Kind::{D2D, D2H, Default, H2D, H2H};
    if kind == Kind::H2BufD {
        // E `MemcpyAsyncCheckExLocation`: a source that is not device memory
        // and a device destination, 107000 otherwise (row COPY-KIND-BUF).
        return if loc(src) != Loc::Dev && loc(dst) == Loc::Dev {
            Ok(kind)
        } else {
            Err(())
        };
    }
    let (forced, allowed, default): (Option<Kind>, &[Kind], Kind) = match (loc(src), loc(dst)) {
        (Loc::Host, Loc::Dev) => (Some(H2D), &[], H2D),
        (Loc::Dev, Loc::Host) => (Some(D2H), &[], D2H),
        (Loc::Host, Loc::Host) => (Some(H2H), &[], H2H),
        (Loc::Dev, Loc::Dev) => (Some(D2D), &[], D2D),
        (Loc::Unreg, Loc::Dev) => (None, &[H2D, D2D], H2D),
        (Loc::Dev, Loc::Unreg) => (None, &[D2H, D2D], D2H),
        (Loc::Host, Loc::Unreg) => (None, &[H2H, H2D], H2H),
        (Loc::Unreg, Loc::Host) => (None, &[H2H, D2H], H2H),
        (Loc::Unreg, Loc::Unreg) => (None, &[H2H, H2D, D2H, D2D], H2H),
    };
    match forced {
        Some(k) => Ok(k),
        None if kind == Default => Ok(default),
        None if allowed.contains(&kind) => Ok(kind),
        None => Err(()),
    }
}

/// 107000 for a kind the runtime's correction refuses or resolves to a
/// direction `call` does not support.
fn unsupported_direction(call: &str, kind: Kind, resolved: Option<Kind>) -> Error {
    rt_param(match resolved {
        Some(r) => format!(
            "{call}: kind {} resolves to {} from where src and dst lie, which {call} does not \
             support",
            kind.name(),
            r.name()
        ),
        None if kind == Kind::H2BufD => format!(
            "{call}: kind {} needs a host source and a device destination",
            kind.name()
        ),
        None => format!(
            "{call}: kind {} does not fit pageable host memory on that side of the copy",
            kind.name()
        ),
    })
}

/// The peer rule: device memory of another device than `cur` needs peer
/// access `cur -> that device`.
fn check_peer(rt: &Runtime, cur: i32, accesses: &[(&str, &Access)]) -> Res<()> {
    for (role, a) in accesses {
        if let Place::Device(d) = a.place {
            if d != cur && !rt.device(cur).is_ok_and(|dev| dev.peers.contains(&d)) {
                return Err(Error::violation(
                    ViolationKind::CrossDeviceWithoutPeerAccess,
                    ffi::ACL_ERROR_RT_NO_PERMISSION,
                    format!(
                        "{role} {:#x} is memory of device {d}, but the current device is {cur} \
                         and peer access {cur} -> {d} is not enabled \
                         (aclrtDeviceCanAccessPeer + aclrtDeviceEnablePeerAccess)",
                        a.span.addr()
                    ),
                ));
            }
        }
    }
    Ok(())
}

pub(crate) fn check_count(count: usize, dest_max: usize) -> Res<()> {
    if count > dest_max {
        return Err(rt_param(format!(
            "count {count} exceeds destMax {dest_max}"
        )));
    }
    Ok(())
}

/// `aclrtMemcpy`, I (`ApiImpl::MemCopySync` and the driver's copy): the
/// current context, then the memory and the kind. The ACL layer's and E's
/// checks were made before (`acl_layer::memcpy`, `rt_api::memcpy`).
pub(crate) fn memcpy(dst: UserMem, src: UserMem, count: usize, kind: Kind) -> Res<()> {
    let (d, s) = {
        let rt = rt();
        let cur = rt.current()?.device;
        let d = rt.mem.access(dst, count, "dst")?;
        let s = rt.mem.access(src, count, "src")?;
        check_kind(&rt, "aclrtMemcpy", kind, &d, &s)?;
        check_peer(&rt, cur, &[("dst", &d), ("src", &s)])?;
        (d, s)
    };
    if d.span.addr() != s.span.addr() && !prim::copy(&d.span, &s.span) {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_INTERNAL_ERROR,
            "internal copy error",
        ));
    }
    Ok(())
}

/// Validates and queues an async copy; `two_d` carries the 2-D geometry.
pub(crate) fn queue_copy(
    stream: usize,
    kind: Kind,
    dst: (UserMem, usize),
    src: (UserMem, usize),
    two_d: Option<(usize, usize, usize, usize)>,
) -> Res<()> {
    let (sh, op) = {
        let rt = rt();
        let (ctx, st) = rt.stream_in_current(stream)?;
        let cur = ctx.device;
        let sh = st.shared.clone();
        let mode = rt.cfg.run_mode;
        if kind == Kind::H2H && mode == RunMode::Host {
            return Err(h2h_async());
        }
        let d = rt.mem.access(dst.0, dst.1, "dst")?;
        let s = rt.mem.access(src.0, src.1, "src")?;
        let call = if two_d.is_some() {
            "aclrtMemcpy2dAsync"
        } else {
            "aclrtMemcpyAsync"
        };
        check_kind(&rt, call, kind, &d, &s)?;
        // Host run mode: the runtime corrects the kind from the pointers
        // (device run mode keeps it).
        let resolved = if mode == RunMode::Host {
            Some(
                resolve(kind, s.place, d.place)
                    .map_err(|()| unsupported_direction(call, kind, None))?,
            )
        } else {
            None
        };
        if two_d.is_none() && resolved == Some(Kind::H2H) {
            return Err(h2h_async());
        }
        if two_d.is_some() {
            // 2-D: only H2D, D2H and D2D after the correction; in device run
            // mode DEFAULT is not corrected, so it is refused too.
            let k = resolved.unwrap_or(kind);
            if !matches!(k, Kind::H2D | Kind::D2H | Kind::D2D) {
                return Err(unsupported_direction("aclrtMemcpy2dAsync", kind, Some(k)));
            }
        }
        check_peer(&rt, cur, &[("dst", &d), ("src", &s)])?;
        // The staging kind copies a host source now, so it may be released
        // as soon as the call returns.
        let src_span = if kind == Kind::H2BufD && s.place.is_host() {
            s.span.stage()
        } else {
            s.span
        };
        let op = match two_d {
            None => Op::Copy {
                dst: d.span,
                src: src_span,
                name: kind.task_name(false),
            },
            Some((dpitch, spitch, width, height)) => Op::Copy2d {
                dst: d.span,
                dpitch,
                src: src_span,
                spitch,
                width,
                height,
                name: kind.task_name(true),
            },
        };
        (sh, op)
    };
    let ticket = sh.ticket();
    sh.submit(op, ticket)?;
    Ok(())
}

/// 207000: host-to-host is not an asynchronous copy in host run mode
/// (explicit, or `DEFAULT` between two host buffers; fidelity row
/// COPY-ASYNC-H2H).
fn h2h_async() -> Error {
    Error::new(
        ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
        "a host-to-host copy (ACL_MEMCPY_HOST_TO_HOST, or ACL_MEMCPY_DEFAULT between two host \
         buffers) is not supported by asynchronous copies in host run mode (use aclrtMemcpy or \
         a plain host copy)",
    )
}

/// Async limits of 2-D copies.
const MAX_2D_WIDTH: usize = 5_000_000;
const MAX_2D_HEIGHT: usize = 5_242_880;

/// The ACL layer's checks of a 2-D copy (`CheckMemcpy2dParam`): NULL
/// pointers, a width above a pitch, a kind the 2-D copies do not take
/// (100000); the kind.
pub(crate) fn check_2d_args(
    dst: &UserMem,
    dpitch: usize,
    src: &UserMem,
    spitch: usize,
    width: usize,
    kind: u32,
) -> Res<Kind> {
    require(!dst.is_null(), || "dst is NULL".to_owned())?;
    require(!src.is_null(), || "src is NULL".to_owned())?;
    require(width <= spitch, || {
        format!("width {width} exceeds spitch {spitch}")
    })?;
    require(width <= dpitch, || {
        format!("width {width} exceeds dpitch {dpitch}")
    })?;
    kind_2d(kind)
}

/// A 2-D copy after the ACL layer's checks: the runtime's (E
/// `MemCopy2DSync`/`MemCopy2DAsync`: the control queue for a NULL stream,
/// the limits, the directions), then the copy (queued on `stream`, or done
/// now).
#[allow(clippy::too_many_arguments)]
pub(crate) fn copy_2d_checked(
    dst: UserMem,
    dpitch: usize,
    src: UserMem,
    spitch: usize,
    width: usize,
    height: usize,
    kind: Kind,
    stream: Option<usize>,
) -> Res<()> {
    if let Some(h) = stream {
        crate::stream::null_stream_needs_control_sq(&rt(), h, "aclrtMemcpy2dAsync")?;
    }
    // The runtime layer's limits, for both calls (fidelity row COPY2D-LIMIT).
    if height > MAX_2D_HEIGHT {
        return Err(rt_param(format!(
            "height {height} exceeds the 2-D copy limit {MAX_2D_HEIGHT}"
        )));
    }
    if width > MAX_2D_WIDTH {
        return Err(rt_param(format!(
            "width {width} exceeds the 2-D copy limit {MAX_2D_WIDTH}"
        )));
    }
    if stream.is_none() && kind == Kind::D2D {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "aclrtMemcpy2d supports only host-to-device and device-to-host copies \
             (ACL_MEMCPY_DEVICE_TO_DEVICE is for aclrtMemcpy2dAsync)",
        ));
    }
    let (Some(dlen), Some(slen)) = (
        prim::extent_2d(dpitch, width, height),
        prim::extent_2d(spitch, width, height),
    ) else {
        return Err(param("the 2-D region overflows the address space"));
    };
    if let Some(stream) = stream {
        return queue_copy(
            stream,
            kind,
            (dst, dlen),
            (src, slen),
            Some((dpitch, spitch, width, height)),
        );
    }
    let (d, s) = {
        let rt = rt();
        let cur = rt.current()?.device;
        let d = rt.mem.access(dst, dlen, "dst")?;
        let s = rt.mem.access(src, slen, "src")?;
        let mode = rt.cfg.run_mode;
        check_kind(&rt, "aclrtMemcpy2d", kind, &d, &s)?;
        // The synchronous 2-D copy resolves the kind from the pointers in
        // both run modes and runs only H2D and D2H (fidelity row
        // COPY2D-SYNC-KIND). Device run mode: only DEFAULT is resolved here
        // (where the driver puts "host" memory there is not in the source).
        if mode == RunMode::Host || kind == Kind::Default {
            let resolved = resolve(kind, s.place, d.place)
                .map_err(|()| unsupported_direction("aclrtMemcpy2d", kind, None))?;
            if !matches!(resolved, Kind::H2D | Kind::D2H) {
                return Err(unsupported_direction("aclrtMemcpy2d", kind, Some(resolved)));
            }
        }
        check_peer(&rt, cur, &[("dst", &d), ("src", &s)])?;
        (d, s)
    };
    if !prim::copy_2d(&d.span, dpitch, &s.span, spitch, width, height) {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_INTERNAL_ERROR,
            "internal 2-D copy error",
        ));
    }
    Ok(())
}

fn memset_target(rt: &Runtime, dst: UserMem, count: usize, cur: i32) -> Res<Access> {
    let d = rt.mem.access(dst, count, "devPtr")?;
    if matches!(d.place, Place::App | Place::Registered) && rt.cfg.run_mode == RunMode::Host {
        return Err(Error::violation(
            ViolationKind::KindMismatch,
            ffi::ACL_ERROR_RT_INVALID_MEMORY_TYPE,
            format!(
                "devPtr {:#x} is {}; memset of host memory not allocated by the runtime is \
                 undefined",
                d.span.addr(),
                d.place.describe()
            ),
        ));
    }
    check_peer(rt, cur, &[("devPtr", &d)])?;
    Ok(d)
}

/// `aclrtMemset` (and `aclrtMemsetAsync` with `stream`).
pub(crate) fn memset(
    dst: UserMem,
    max_count: usize,
    value: i32,
    count: usize,
    stream: Option<usize>,
) -> Res<()> {
    if count == 0 {
        return Ok(());
    }
    require(!dst.is_null(), || "devPtr is NULL".to_owned())?;
    // Byte-wise, like C memset: the low byte of `value`.
    let byte = value as u8;
    match stream {
        None => {
            let d = {
                let rt = rt();
                // I `MemSetSync`: the current context, then the driver's
                // count check (E checks no count for the synchronous form).
                let cur = rt.current()?.device;
                check_count(count, max_count)?;
                memset_target(&rt, dst, count, cur)?
            };
            if !prim::fill(&d.span, byte) {
                return Err(Error::new(
                    ffi::ACL_ERROR_RT_INTERNAL_ERROR,
                    "internal memset error",
                ));
            }
            Ok(())
        }
        Some(stream) => {
            let (sh, op) = {
                let rt = rt();
                let (ctx, st) = rt.stream_in_current(stream)?;
                let (cur, sh) = (ctx.device, st.shared.clone());
                let d = memset_target(&rt, dst, count, cur)?;
                (
                    sh,
                    Op::Memset {
                        dst: d.span,
                        value: byte,
                    },
                )
            };
            let ticket = sh.ticket();
            sh.submit(op, ticket)?;
            Ok(())
        }
    }
}

/// `aclrtGetMemInfo`.
pub(crate) fn mem_info(attr: u32, free: Out<usize>, total: Out<usize>) -> Res<()> {
    let rt = rt();
    let cur = rt.current()?.device;
    let dev = rt.device(cur)?;
    // A kind of memory the chip does not have answers 0 and 0 (src/profile.rs).
    let (f, t) = if rt.cfg.soc.mem_attr_reports(attr) {
        (
            usize::try_from(dev.mem_total.saturating_sub(dev.mem_used)).unwrap_or(usize::MAX),
            usize::try_from(dev.mem_total).unwrap_or(usize::MAX),
        )
    } else {
        (0, 0)
    };
    free.write(f);
    total.write(t);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_sizes_follow_the_documented_rounding() {
        assert_eq!(padded_size(1, MallocFn::Malloc, 0), Some(64));
        assert_eq!(padded_size(32, MallocFn::Malloc, 0), Some(64));
        assert_eq!(padded_size(33, MallocFn::Malloc, 0), Some(96));
        assert_eq!(padded_size(33, MallocFn::Align32, 0), Some(64));
        assert_eq!(padded_size(33, MallocFn::Host, 0), Some(64));
        assert_eq!(padded_size(33, MallocFn::Cached, 2), Some(96));
        assert_eq!(
            padded_size(1, MallocFn::Malloc, ffi::ACL_MEM_MALLOC_HUGE1G_ONLY),
            Some(GIB)
        );
        assert_eq!(padded_size(usize::MAX - 40, MallocFn::Malloc, 0), None);
    }
}
