//! Host registration (`aclrtHostRegister`, `aclrtHostRegisterV2`,
//! `aclrtHostGetDevicePointer`, `aclrtHostUnregister`) and managed memory
//! (`aclrtMemAllocManaged`); facts F.4 and F.5.
//!
//! Registered memory stays the application's: the registry keeps its range,
//! the device it was registered for and a [`Registered`] token. Copies of a
//! registered range are classified as host memory and run truly
//! asynchronously (the span holds the token, so an unregistration while a
//! task still uses the range is refused). The device alias handed out by
//! `aclrtHostRegister` / `aclrtHostGetDevicePointer` is the host address with
//! bit 52 set: never a valid user-space address on the supported 48-bit
//! address spaces, so it can never be confused with application memory. Only
//! kernels resolve it (through [`Registry::resolve_alias`](crate::rt::registry::Registry::resolve_alias)); a copy or
//! memset through it is a strict-check violation.

use std::sync::Arc;

use crate::diag::{Error, Res, rt_param};
use crate::ffi;
use crate::model::ViolationKind;
use crate::prim::{HeapBlock, Out, Registered, UserMem};
use crate::rt::access::Place;
use crate::rt::mem::{AllocKind, Allocation};
use crate::rt::registry::{ACL_HOST_REG_MAPPED, ALIAS_BIT, How, Registration};
use crate::rt::rt;

const ACL_HOST_REG_IOMEMORY: u32 = ffi::ACL_HOST_REG_IOMEMORY as u32;
const ACL_HOST_REG_READONLY: u32 = ffi::ACL_HOST_REG_READONLY as u32;
const ACL_HOST_REG_PINNED: u32 = ffi::ACL_HOST_REG_PINNED as u32;
pub(crate) const ACL_RT_MEM_ATTACH_GLOBAL: u32 = ffi::ACL_RT_MEM_ATTACH_GLOBAL as u32;

/// The page size registrations must be aligned to (4 KiB).
pub(crate) const PAGE: usize = 4096;
/// The rounding of managed allocations (2 MiB).
pub(crate) const MANAGED_ROUND: usize = 2 << 20;
/// The per-process limit of managed memory (3 TB).
pub(crate) const MANAGED_LIMIT: u64 = 3 << 40;

/// Common checks and insertion of a registration.
fn register(ptr: UserMem, size: u64, how: How) -> Res<usize> {
    let addr = ptr.addr();
    let size = usize::try_from(size)
        .map_err(|_| rt_param(format!("size {size} does not fit the address space")))?;
    let mut rt = rt();
    let ctx = rt.current()?;
    let (ctx, device) = (ctx.handle, ctx.device);
    // The driver maps host memory for the device only on chips with the
    // host-registration feature (CFG `RT_FEATURE_MEM_HOST_REGISTER`: the
    // 910B, not the 310P): `NpuDriver::HostRegister` answers 207000
    // otherwise, for every V1 registration and a V2 one that maps (row
    // REG-SOC); a V2 registration that only pins is the runtime's own.
    let maps = match how {
        How::V1 => true,
        How::V2 { flag } => {
            flag & (ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY) != 0
        }
    };
    if maps && !rt.cfg.soc.host_register() {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "the simulated chip ({:?}) cannot map host memory for the device \
                 (no host-registration feature)",
                rt.cfg.soc
            ),
        ));
    }
    if addr.checked_add(size).is_none() || addr & ALIAS_BIT != 0 {
        return Err(rt_param(format!(
            "ptr {addr:#x} + {size} bytes is not a host address range"
        )));
    }
    if let Some((start, r)) = rt.mem.reg.overlapping(addr, size) {
        return Err(Error::new(
            ffi::ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
            format!(
                "{addr:#x}..{:#x} overlaps the registration {start:#x}..{:#x} (device {})",
                addr + size,
                start + r.size,
                r.device
            ),
        ));
    }
    // Runtime memory: only whole aclrtMallocHost blocks may be registered
    // (pinned memory; kernels <= 5.10 allow nothing else).
    match rt.mem.access_runtime(addr, 0) {
        Ok(a) if a.place == Place::PinnedHost => {
            if let Err(why) = rt.mem.access_runtime(addr, size) {
                return Err(Error::violation(
                    ViolationKind::OutOfBounds,
                    ffi::ACL_ERROR_RT_PARAM_INVALID,
                    format!("the registered range runs past its aclrtMallocHost block: {why}"),
                ));
            }
            if let How::V2 { flag } = how {
                if flag & ACL_HOST_REG_PINNED != 0 {
                    return Err(rt_param(format!(
                        "{addr:#x} is pinned memory from aclrtMallocHost; ACL_HOST_REG_PINNED \
                         on memory that is already pinned is an error"
                    )));
                }
            }
        }
        Ok(a) => {
            return Err(Error::violation(
                ViolationKind::KindMismatch,
                ffi::ACL_ERROR_RT_INVALID_MEMORY_TYPE,
                format!(
                    "{addr:#x} is {}; only host memory can be registered",
                    a.place.describe()
                ),
            ));
        }
        Err(_) => {
            rt.mem.check_gaps("ptr", addr, size.max(1))?;
            if let Some((start, a)) = rt.mem.live.range(addr..addr + size).next() {
                return Err(Error::violation(
                    ViolationKind::OutOfBounds,
                    ffi::ACL_ERROR_RT_PARAM_INVALID,
                    format!(
                        "{addr:#x}..{:#x} runs into the {}-byte runtime allocation at {start:#x}",
                        addr + size,
                        a.size
                    ),
                ));
            }
        }
    }
    if addr % PAGE != 0 {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_ADDR_UNALIGNED,
            format!(
                "ptr {addr:#x} is not 4 KiB page-aligned ({} bytes past a page boundary); host \
                 registration maps whole pages",
                addr % PAGE
            ),
        ));
    }
    rt.mem.reg.live.insert(
        addr,
        Registration {
            size,
            device,
            ctx,
            how,
            token: Registered::new(&ptr, size),
        },
    );
    Ok(addr | ALIAS_BIT)
}

/// `aclrtHostRegister`, I (the ACL layer's checks and E's type check were
/// made before: `acl_layer::host_register`, `rt_api::host_register`).
pub(crate) fn host_register(
    ptr: UserMem,
    size: u64,
    ty: u32,
    dev_ptr: Out<*mut std::ffi::c_void>,
) -> Res<()> {
    if ty != ffi::ACL_HOST_REGISTER_MAPPED {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "type {ty:#x}: ACL_HOST_REGISTER_IOMEMORY and ACL_HOST_REGISTER_READONLY are \
                 reserved and unsupported; use ACL_HOST_REGISTER_MAPPED (0)"
            ),
        ));
    }
    let alias = register(ptr, size, How::V1)?;
    dev_ptr.write(std::ptr::without_provenance_mut(alias));
    Ok(())
}

/// The flags `aclrtHostRegisterV2` takes (E `HostRegisterV2`).
pub(crate) const V2_FLAGS: u32 =
    ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | ACL_HOST_REG_PINNED;

/// `aclrtHostRegisterV2`, I (the ACL layer's and E's flag checks were made
/// before).
pub(crate) fn host_register_v2(ptr: UserMem, size: u64, flag: u32) -> Res<()> {
    if flag & (ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY) != 0 {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "flag {flag:#x}: ACL_HOST_REG_IOMEMORY and ACL_HOST_REG_READONLY are reserved \
                 and unsupported"
            ),
        ));
    }
    register(ptr, size, How::V2 { flag }).map(drop)
}

/// `aclrtHostGetDevicePointer`, I (the ACL layer's checks were made
/// before; E repeats them).
pub(crate) fn host_get_device_pointer(
    p_host: UserMem,
    p_device: Out<*mut std::ffi::c_void>,
) -> Res<()> {
    let rt = rt();
    rt.current()?;
    let addr = p_host.addr();
    let Some((start, r)) = rt.mem.reg.containing(addr) else {
        return Err(rt_param(format!(
            "pHost {addr:#x} is not registered host memory (aclrtHostRegister / \
             aclrtHostRegisterV2)"
        )));
    };
    if !r.how.mapped() {
        return Err(rt_param(format!(
            "the registration at {start:#x} was made without ACL_HOST_REG_MAPPED; it has no \
             device alias"
        )));
    }
    p_device.write(std::ptr::without_provenance_mut(addr | ALIAS_BIT));
    Ok(())
}

/// `aclrtHostUnregister`, I (the NULL check was the ACL layer's).
pub(crate) fn host_unregister(ptr: UserMem) -> Res<()> {
    let mut rt = rt();
    rt.current()?;
    let addr = ptr.addr();
    let Some(r) = rt.mem.reg.live.get(&addr) else {
        let inside = rt
            .mem
            .reg
            .containing(addr)
            .map(|(s, _)| {
                format!(" (it lies inside the registration at {s:#x}: pass that start address)")
            })
            .unwrap_or_default();
        return Err(Error::new(
            ffi::ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
            format!("{addr:#x} is not the start of a host registration{inside}"),
        ));
    };
    let holders = Arc::strong_count(&r.token) - 1;
    if holders > 0 {
        return Err(Error::violation(
            ViolationKind::ReleaseWhileInUse,
            ffi::ACL_ERROR_RT_STREAM_NOT_COMPLETE,
            format!(
                "the {}-byte registration at {addr:#x} is still used by {holders} queued or \
                 running task(s); synchronize the stream before unregistering",
                r.size
            ),
        ));
    }
    rt.mem.reg.live.remove(&addr);
    Ok(())
}

/// `aclrtMemAllocManaged`, I (the ACL layer's NULL and flag checks and E's
/// size check were made before).
pub(crate) fn alloc_managed(out: Out<*mut std::ffi::c_void>, size: u64) -> Res<()> {
    let rounded = size
        .checked_add(MANAGED_ROUND as u64 - 1)
        .map(|s| s / MANAGED_ROUND as u64 * MANAGED_ROUND as u64)
        .filter(|&r| usize::try_from(r).is_ok())
        .ok_or_else(|| rt_param(format!("size {size} overflows when rounded to 2 MiB")))?;
    let mut rt = rt();
    let ctx = rt.current()?;
    let (ctx, device) = (ctx.handle, ctx.device);
    let in_use: u64 = rt
        .mem
        .live
        .values()
        .filter(|a| a.kind == AllocKind::Managed)
        .map(|a| a.charged)
        .sum();
    if in_use + rounded > MANAGED_LIMIT {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!(
                "the process would exceed the 3 TB of managed memory ({in_use} bytes in use, \
                 {rounded} requested)"
            ),
        ));
    }
    let dev = rt.device_mut(device)?;
    let free = dev.mem_total.saturating_sub(dev.mem_used);
    if rounded > free {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!(
                "out of memory on device {device}: {size} bytes of managed memory requested \
                 ({rounded} rounded to 2 MiB), {free} of {} bytes free",
                dev.mem_total
            ),
        ));
    }
    let len = rounded as usize;
    let Some(block) = HeapBlock::new(len) else {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!("the host allocator could not provide {len} bytes"),
        ));
    };
    dev.mem_used += rounded;
    let ptr = block.user_ptr();
    rt.mem.live.insert(
        block.addr(),
        Allocation {
            block,
            size: len,
            charged: rounded,
            device,
            ctx,
            kind: AllocKind::Managed,
            on_device: true,
        },
    );
    out.write(ptr);
    Ok(())
}
