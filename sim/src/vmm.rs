//! Virtual memory: reserved address ranges (`aclrtReserveMemAddress`,
//! `aclrtReleaseMemAddress`), physical allocations (`aclrtMallocPhysical`,
//! `aclrtFreePhysical`), mappings of the one into the other
//! (`aclrtMapMem`, `aclrtUnmapMem`), access descriptors
//! (`aclrtMemSetAccess`, `aclrtMemGetAccess`), the allocation granularity,
//! and shareable handles (`aclrtMemExportToShareableHandle`,
//! `aclrtMemSetPidToShareableHandle`, `aclrtMemImportFromShareableHandle`):
//! the implementation's checks (I, `api_impl.cc` and the driver's `halMem*`
//! calls, which are not public: their answers here are the simulator's
//! choices, documented in `sim/FIDELITY.md`).
//!
//! A reservation owns a range of the simulator's address space (so no
//! other allocation takes it, and a pointer into an unmapped part of it is
//! refused as outside every allocation). A physical allocation owns its
//! bytes. A mapping enters the allocation table as device memory at its
//! virtual address, reached through the physical allocation's own bytes:
//! two mappings of one physical allocation (or of an import of it) see the
//! same bytes, and the bytes survive unmapping and mapping again.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::diag::{Error, Res, rt_param};
use crate::ffi;
use crate::model::ViolationKind;
use crate::prim::{HeapBlock, Out};
use crate::rt::ext::{Physical, Reservation, Shareable};
use crate::rt::mem::{AllocKind, Allocation};
use crate::rt::{HandleKind, Runtime, new_handle, rt};

/// 2 MiB: the granularity of huge-page physical memory (the default), of
/// reservations, and the recommended one of every page type.
pub(crate) const HUGE_GRANULARITY: usize = 2 << 20;
/// 4 KiB: the minimum granularity of normal-page physical memory.
pub(crate) const NORMAL_GRANULARITY: usize = 4 << 10;
/// 1 GiB: the granularity of 1 GiB huge pages.
pub(crate) const GIANT_GRANULARITY: usize = 1 << 30;

/// The properties of a physical allocation (`aclrtPhysicalMemProp`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Prop {
    pub handle_type: u32,
    pub allocation_type: u32,
    pub mem_attr: u32,
    pub loc_id: u32,
    pub loc_type: u32,
}

/// The memory attributes the ACL layer translates (its `memAttrHandlers`).
pub(crate) fn attr_known(attr: u32) -> bool {
    [
        ffi::ACL_HBM_MEM_HUGE,
        ffi::ACL_HBM_MEM_NORMAL,
        ffi::ACL_HBM_MEM_HUGE1G,
        ffi::ACL_DDR_MEM_HUGE,
        ffi::ACL_DDR_MEM_NORMAL,
        ffi::ACL_DDR_MEM_P2P_HUGE,
        ffi::ACL_DDR_MEM_P2P_NORMAL,
        ffi::ACL_MEM_NORMAL,
        ffi::ACL_MEM_HUGE,
    ]
    .contains(&attr)
}

/// The DDR attributes, which only host locations take.
pub(crate) fn attr_host_only(attr: u32) -> bool {
    [
        ffi::ACL_DDR_MEM_HUGE,
        ffi::ACL_DDR_MEM_NORMAL,
        ffi::ACL_DDR_MEM_P2P_HUGE,
        ffi::ACL_DDR_MEM_P2P_NORMAL,
    ]
    .contains(&attr)
}

/// The minimum granularity of a memory attribute.
fn min_granularity(attr: u32) -> usize {
    match attr {
        a if a == ffi::ACL_HBM_MEM_HUGE1G => GIANT_GRANULARITY,
        a if a == ffi::ACL_HBM_MEM_NORMAL
            || a == ffi::ACL_DDR_MEM_NORMAL
            || a == ffi::ACL_DDR_MEM_P2P_NORMAL
            || a == ffi::ACL_MEM_NORMAL =>
        {
            NORMAL_GRANULARITY
        }
        _ => HUGE_GRANULARITY,
    }
}

/// I `GetAllocationGranularity` (the ACL layer checked the attribute, E the
/// device): MINIMUM (0) or RECOMMENDED (1), else 107000.
pub(crate) fn granularity(prop: Prop, option: u32) -> Res<usize> {
    match option {
        0 => Ok(min_granularity(prop.mem_attr)),
        1 => Ok(min_granularity(prop.mem_attr).max(HUGE_GRANULARITY)),
        other => Err(rt_param(format!(
            "option {other}: expected ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM (0) or \
             ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED (1)"
        ))),
    }
}

fn not_multiple(what: &str, v: usize, g: usize) -> Error {
    rt_param(format!(
        "{what} {v:#x} is not a multiple of the allocation granularity {g:#x} \
         (aclrtMemGetAllocationGranularity)"
    ))
}

/// I `ReserveMemAddress`: a current context (107002); `expectPtr` must be
/// NULL, the size a multiple of 2 MiB, the alignment 0 or a power of two
/// (107000).
pub(crate) fn reserve(out: Out<usize>, size: usize, alignment: usize, expect: usize) -> Res<()> {
    let mut rt = rt();
    let device = rt.current()?.device;
    if expect != 0 {
        return Err(rt_param(format!(
            "expectPtr {expect:#x}: a fixed address cannot be requested (must be NULL)"
        )));
    }
    if size % HUGE_GRANULARITY != 0 {
        return Err(not_multiple("size", size, HUGE_GRANULARITY));
    }
    if alignment != 0 && !alignment.is_power_of_two() {
        return Err(rt_param(format!(
            "alignment {alignment:#x} is not a power of two"
        )));
    }
    // A reservation starts on a granule (or the requested alignment, if
    // larger), so that mappings at granule offsets are granule aligned.
    let alignment = alignment.max(HUGE_GRANULARITY);
    let extra = alignment - crate::prim::arena::PAGE;
    let block = size
        .checked_add(extra)
        .and_then(HeapBlock::new)
        .ok_or_else(|| {
            Error::new(
                ffi::ACL_ERROR_RT_MEMORY_ALLOCATION,
                format!("cannot reserve {size:#x} bytes of address space"),
            )
        })?;
    let base = block.addr().next_multiple_of(alignment);
    let window = block
        .window(base - block.addr(), size)
        .ok_or_else(|| rt_param("internal: reservation window"))?;
    rt.ext.reservations.insert(
        base,
        Reservation {
            block: window,
            size,
            device,
            maps: Default::default(),
        },
    );
    out.write(base);
    Ok(())
}

/// I `ReleaseMemAddress`: the start of a live reservation (107000); one
/// with mappings left is refused (107000: unmap first).
pub(crate) fn release(addr: usize) -> Res<()> {
    let mut rt = rt();
    let Some(r) = rt.ext.reservations.get(&addr) else {
        return Err(rt_param(format!(
            "virPtr {addr:#x} is not the start of a reservation of aclrtReserveMemAddress"
        ))
        .on(addr));
    };
    if let Some((&at, _)) = r.maps.iter().next() {
        return Err(Error::violation(
            ViolationKind::ReleaseWhileInUse,
            ffi::ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "the reservation at {addr:#x} still has {} mapping(s) (the first at {at:#x}); \
                 aclrtUnmapMem them before aclrtReleaseMemAddress",
                r.maps.len()
            ),
        )
        .on(addr));
    }
    rt.ext.reservations.remove(&addr);
    Ok(())
}

/// I `MallocPhysical` (the ACL layer checked the properties, E the
/// device): device locations only (a host location: 207000); the size a
/// multiple of the attribute's granularity (107000); charged to the device
/// (207001 when it is full).
pub(crate) fn malloc_physical(out: Out<usize>, size: usize, prop: Prop) -> Res<()> {
    if prop.loc_type != ffi::ACL_MEM_LOCATION_TYPE_DEVICE {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "physical memory on the host (ACL_MEM_LOCATION_TYPE_HOST, HOST_NUMA) is not \
             simulated; use ACL_MEM_LOCATION_TYPE_DEVICE",
        ));
    }
    let g = min_granularity(prop.mem_attr);
    if size % g != 0 {
        return Err(not_multiple("size", size, g));
    }
    let mut rt = rt();
    let device = prop.loc_id as i32;
    let d = rt.device_mut(device)?;
    let charge = size as u64;
    if d.mem_used + charge > d.mem_total {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!(
                "device {device} has {} bytes free; {size} were requested",
                d.mem_total - d.mem_used
            ),
        ));
    }
    let store = HeapBlock::new(size).ok_or_else(|| {
        Error::new(
            ffi::ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!("cannot allocate {size} bytes"),
        )
    })?;
    d.mem_used += charge;
    let (_, h) = new_handle(HandleKind::Physical);
    rt.ext.physical.insert(
        h,
        Physical {
            store,
            size,
            device,
            charged: charge,
            granularity: g,
            mapped: 0,
            shareable: None,
            imported_from: None,
        },
    );
    out.write(h);
    Ok(())
}

/// The refusal of a physical handle that is not live.
fn bad_physical(rt: &Runtime, h: usize) -> Error {
    let e = rt.bad_handle(h, HandleKind::Physical);
    Error {
        code: ffi::ACL_ERROR_RT_PARAM_INVALID,
        ..e
    }
}

/// I `FreePhysical`: a live handle (107000), not mapped anywhere (107000:
/// unmap first).
pub(crate) fn free_physical(h: usize) -> Res<()> {
    let mut rt = rt();
    let Some(p) = rt.ext.physical.get(&h) else {
        return Err(bad_physical(&rt, h));
    };
    if p.mapped > 0 {
        return Err(Error::violation(
            ViolationKind::ReleaseWhileInUse,
            ffi::ACL_ERROR_RT_PARAM_INVALID,
            format!(
                "physical memory {h:#x} is still mapped {} time(s); aclrtUnmapMem first",
                p.mapped
            ),
        )
        .on(h));
    }
    let Some(p) = rt.ext.physical.remove(&h) else {
        return Err(bad_physical(&rt, h));
    };
    if let Ok(d) = rt.device_mut(p.device) {
        d.mem_used = d.mem_used.saturating_sub(p.charged);
    }
    if let Some(s) = p.shareable {
        if let Some(e) = rt.ext.shareable.remove(&s) {
            drop(rt);
            crate::shared_files::remove_shared(&e.name);
        }
    }
    Ok(())
}

/// I `MapMem`: `virPtr` inside a live reservation, the range inside it and
/// free of other mappings, the handle live, `offset + size` inside the
/// physical allocation, `virPtr`, `size` and `offset` multiples of its
/// granularity (107000 each).
pub(crate) fn map(addr: usize, size: usize, offset: usize, h: usize) -> Res<()> {
    let mut rt = rt();
    let ctx = rt.current()?.handle;
    let Some(p) = rt.ext.physical.get(&h) else {
        return Err(bad_physical(&rt, h));
    };
    let (store, psize, device, g) = (p.store.clone(), p.size, p.device, p.granularity);
    for (what, v) in [("virPtr", addr), ("size", size), ("offset", offset)] {
        if v % g != 0 {
            return Err(not_multiple(what, v, g));
        }
    }
    if offset.checked_add(size).is_none_or(|end| end > psize) {
        return Err(rt_param(format!(
            "offset {offset:#x} + size {size:#x} exceeds the {psize:#x}-byte physical allocation"
        )));
    }
    let Some((&base, r)) = rt.ext.reservations.range(..=addr).next_back() else {
        return Err(rt_param(format!(
            "virPtr {addr:#x} is not inside a reservation of aclrtReserveMemAddress"
        )));
    };
    if addr.checked_add(size).is_none_or(|end| end > base + r.size) {
        return Err(rt_param(format!(
            "virPtr {addr:#x} + size {size:#x} runs past the reservation at {base:#x} \
             ({:#x} bytes)",
            r.size
        )));
    }
    if let Some((&m, &(msize, _, _))) = r.maps.range(..addr + size).next_back() {
        if m + msize > addr {
            return Err(rt_param(format!(
                "virPtr {addr:#x} + size {size:#x} overlaps the mapping at {m:#x}"
            )));
        }
    }
    let block = store
        .window(offset, size)
        .ok_or_else(|| rt_param("internal: mapping window"))?;
    if let Some(r) = rt.ext.reservations.get_mut(&base) {
        r.maps.insert(addr, (size, h, offset));
    }
    if let Some(p) = rt.ext.physical.get_mut(&h) {
        p.mapped += 1;
    }
    rt.mem.live.insert(
        addr,
        Allocation {
            block,
            size,
            charged: 0,
            device,
            ctx,
            kind: AllocKind::Mapped,
            on_device: true,
        },
    );
    Ok(())
}

/// The reservation holding a mapping that starts at `addr`:
/// (reservation base, mapping size, physical handle).
fn mapping_at(rt: &Runtime, addr: usize) -> Option<(usize, usize, usize)> {
    let (&base, r) = rt.ext.reservations.range(..=addr).next_back()?;
    r.maps.get(&addr).map(|&(size, h, _)| (base, size, h))
}

/// I `UnmapMem`: the start of a mapping (107000). The range leaves the
/// allocation table (a later access is a use after unmap); the bytes stay
/// with the physical allocation.
pub(crate) fn unmap(addr: usize) -> Res<()> {
    let mut rt = rt();
    let Some((base, _, h)) = mapping_at(&rt, addr) else {
        return Err(rt_param(format!(
            "virPtr {addr:#x} is not the start of a mapping of aclrtMapMem"
        ))
        .on(addr));
    };
    if let Some(r) = rt.ext.reservations.get_mut(&base) {
        r.maps.remove(&addr);
    }
    if let Some(p) = rt.ext.physical.get_mut(&h) {
        p.mapped = p.mapped.saturating_sub(1);
    }
    rt.ext.access.remove(&addr);
    if let Some(a) = rt.mem.live.remove(&addr) {
        rt.mem.quarantine(addr, a);
    }
    Ok(())
}

/// I `MemSetAccess`: the range `[virPtr, virPtr + size)` must be one
/// mapping (107000); `count` descriptors, each a device location of a
/// valid device (107001 otherwise) with flags NONE, READ or READWRITE
/// (107000). The last descriptor is kept. The simulator records the
/// access; it does not enforce it on copies.
pub(crate) fn set_access(addr: usize, size: usize, descs: &[(u32, u32, u64)]) -> Res<()> {
    let mut rt = rt();
    if descs.is_empty() {
        return Err(rt_param("count is 0"));
    }
    match mapping_at(&rt, addr) {
        Some((_, msize, _)) if msize == size => {}
        _ => {
            return Err(rt_param(format!(
                "virPtr {addr:#x} with size {size:#x} is not one mapping of aclrtMapMem"
            )));
        }
    }
    for &(ty, id, flags) in descs {
        if ty != ffi::ACL_MEM_LOCATION_TYPE_DEVICE {
            return Err(rt_param(format!(
                "location type {ty}: the access is set for a device location"
            )));
        }
        rt.check_device(id as i32)?;
        if ![0, 1, 3].contains(&flags) {
            return Err(rt_param(format!(
                "flags {flags:#x}: expected ACL_RT_MEM_ACCESS_FLAGS_NONE, _READ or _READWRITE"
            )));
        }
    }
    if let Some(&d) = descs.last() {
        rt.ext.access.insert(addr, d);
    }
    Ok(())
}

/// I `MemGetAccess`: an address inside a mapping (107000); its access as
/// set (or read-write for its device).
pub(crate) fn get_access(addr: usize) -> Res<(u32, u32, u64)> {
    let rt = rt();
    let found = rt
        .ext
        .reservations
        .range(..=addr)
        .next_back()
        .and_then(|(_, r)| {
            r.maps
                .range(..=addr)
                .next_back()
                .filter(|&(&m, &(s, _, _))| addr < m + s)
                .map(|(&m, &(_, h, _))| (m, h))
        });
    let Some((start, h)) = found else {
        return Err(rt_param(format!(
            "virPtr {addr:#x} is not inside a mapping of aclrtMapMem"
        )));
    };
    if let Some(&d) = rt.ext.access.get(&start) {
        return Ok(d);
    }
    let device = rt.ext.physical.get(&h).map_or(0, |p| p.device);
    Ok((ffi::ACL_MEM_LOCATION_TYPE_DEVICE, device as u32, 3))
}

/// Shareable handles are per process and never reused.
static NEXT_SHAREABLE: AtomicU32 = AtomicU32::new(1);

/// `ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION`.
pub(crate) const EXPORT_DISABLE_PID_VALIDATION: u64 = 0x1;

/// The shared file of shareable handle `s`: the handle names the exporting
/// process (its upper half) and the export (its lower half).
fn shared_name(s: u64) -> String {
    format!("aclsim_vmm_{}_{}", s >> 32, s & 0xffff_ffff)
}

/// The pid that exported shareable handle `s`.
fn exporter_of(s: u64) -> u32 {
    (s >> 32) as u32
}

/// The numbers an importer in another process reads beside the trustlist:
/// the device, the granularity, the size.
fn share_info(e: &Shareable) -> [u64; 3] {
    [e.device as u64, e.granularity as u64, e.size as u64]
}

/// I `MemExportToShareableHandle` (`rtsMemExportToShareableHandle`): flags
/// DEFAULT or DISABLE_PID_VALIDATION (107000); a live handle of this
/// process (107000; an import cannot be exported again); exporting again
/// returns the same shareable handle. The physical allocation's bytes move
/// into a shared file (`aclsim_vmm_<pid>_<n>`, as IPC memory's do), which
/// its mappings reach from then on, and which an import in another process
/// maps.
pub(crate) fn export(h: usize, flags: u64, out: Out<u64>) -> Res<()> {
    if flags > EXPORT_DISABLE_PID_VALIDATION {
        return Err(rt_param(format!(
            "flags {flags:#x}: expected ACL_RT_VMM_EXPORT_FLAG_DEFAULT or \
             ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION"
        )));
    }
    let mut rt = rt();
    let Some(p) = rt.ext.physical.get(&h) else {
        return Err(bad_physical(&rt, h));
    };
    if p.imported_from.is_some() {
        return Err(rt_param(format!(
            "physical memory {h:#x} was imported from a shareable handle; only its owner exports it"
        )));
    }
    if let Some(s) = p.shareable {
        if let Some(e) = rt.ext.shareable.get_mut(&s) {
            if flags != 0 && !e.any_pid {
                e.any_pid = true;
                if e.in_file {
                    crate::shared_files::write_trust(&e.name, true, &e.pids, &share_info(e))?;
                }
            }
        }
        out.write(s);
        return Ok(());
    }
    let s = (u64::from(std::process::id()) << 32)
        | u64::from(NEXT_SHAREABLE.fetch_add(1, Ordering::Relaxed));
    let name = shared_name(s);
    let (old, size) = (p.store.clone(), p.size);
    // Where the platform has no shared mapping (or the file cannot be
    // made), the handle serves this process only: its bytes stay.
    let shared = crate::shared_files::shared_path(&name)
        .and_then(|path| HeapBlock::shared(&path, size, true))
        .and_then(|shared| {
            crate::shared_files::created(&name);
            // The bytes so far move into the shared file.
            let from = crate::prim::Span::in_block(old.clone(), 0, size);
            let to = crate::prim::Span::in_block(shared.clone(), 0, size);
            match from.zip(to) {
                Some((from, to)) => {
                    crate::prim::copy(&to, &from);
                    Some(shared)
                }
                None => {
                    crate::shared_files::remove_shared(&name);
                    None
                }
            }
        });
    let entry = Shareable {
        name: name.clone(),
        store: shared.clone().unwrap_or(old),
        in_file: shared.is_some(),
        size,
        device: p.device,
        granularity: p.granularity,
        pids: BTreeSet::new(),
        any_pid: flags != 0,
    };
    let Some(shared) = shared else {
        rt.ext.shareable.insert(s, entry);
        if let Some(p) = rt.ext.physical.get_mut(&h) {
            p.shareable = Some(s);
        }
        out.write(s);
        return Ok(());
    };
    if let Err(e) =
        crate::shared_files::write_trust(&name, entry.any_pid, &entry.pids, &share_info(&entry))
    {
        crate::shared_files::remove_shared(&name);
        return Err(e);
    }
    // Its mappings reach the shared bytes from now on (their addresses stay).
    let maps: Vec<(usize, usize, usize)> = rt
        .ext
        .reservations
        .values()
        .flat_map(|r| r.maps.iter())
        .filter(|(_, m)| m.1 == h)
        .map(|(&addr, &(msize, _, off))| (addr, msize, off))
        .collect();
    for (addr, msize, off) in maps {
        if let (Some(w), Some(a)) = (shared.window(off, msize), rt.mem.live.get_mut(&addr)) {
            a.block = w;
        }
    }
    rt.ext.shareable.insert(s, entry);
    if let Some(p) = rt.ext.physical.get_mut(&h) {
        p.store = shared;
        p.shareable = Some(s);
    }
    out.write(s);
    Ok(())
}

/// The export of shareable handle `s` of this process, or the refusal
/// (107000).
fn shareable_of(rt: &Runtime, s: u64) -> Res<&Shareable> {
    rt.ext.shareable.get(&s).ok_or_else(|| {
        rt_param(format!(
            "{s:#x} is not a live shareable handle this process exported \
             (aclrtMemExportToShareableHandle)"
        ))
    })
}

/// I `MemSetPidToShareableHandle`: a live shareable handle this process
/// exported (107000); the pids join its trustlist.
pub(crate) fn set_pids(s: u64, pids: &[i32]) -> Res<()> {
    let mut rt = rt();
    shareable_of(&rt, s)?;
    if let Some(e) = rt.ext.shareable.get_mut(&s) {
        e.pids.extend(pids.iter().copied());
        if e.in_file {
            crate::shared_files::write_trust(&e.name, e.any_pid, &e.pids, &share_info(e))?;
        }
    }
    Ok(())
}

/// I `MemImportFromShareableHandle` (E checked the device): a live
/// shareable handle (107000 otherwise: never exported, or freed by its
/// exporter); in another process than the exporter, that process on the
/// trustlist unless the export disabled it (207006). The import is a new
/// physical handle on the same bytes (in another process, a mapping of the
/// shared file), charged to nobody.
pub(crate) fn import(s: u64, device: i32, out: Out<usize>) -> Res<()> {
    let mut rt = rt();
    rt.check_device(device)?;
    let (store, size, from_device, g) = if let Some(e) = rt.ext.shareable.get(&s) {
        (e.store.clone(), e.size, e.device, e.granularity)
    } else {
        let owner = exporter_of(s);
        let name = shared_name(s);
        let trust = (owner != std::process::id())
            .then(|| crate::shared_files::read_trust(&name))
            .flatten()
            .filter(|t| t.info.len() == 3);
        let Some(trust) = trust else {
            return Err(shareable_of(&rt, s)
                .err()
                .unwrap_or_else(|| rt_param("internal")));
        };
        crate::shared_files::check_trust(
            &format!("shareable handle {s:#x}"),
            &trust,
            owner,
            "aclrtMemSetPidToShareableHandle, or export with \
             ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION",
        )?;
        let (from_device, g, size) = (trust.info[0], trust.info[1], trust.info[2]);
        let (Ok(from_device), Ok(g), Ok(size)) = (
            i32::try_from(from_device),
            usize::try_from(g),
            usize::try_from(size),
        ) else {
            return Err(rt_param(format!(
                "shareable handle {s:#x}: a damaged export"
            )));
        };
        let path =
            crate::shared_files::shared_path(&name).ok_or_else(|| rt_param("internal: name"))?;
        let store = HeapBlock::shared(&path, size, false).ok_or_else(|| {
            rt_param(format!(
                "shareable handle {s:#x}: its exporter freed it (the shared bytes are gone)"
            ))
        })?;
        (store, size, from_device, g)
    };
    let (_, h) = new_handle(HandleKind::Physical);
    rt.ext.physical.insert(
        h,
        Physical {
            store,
            size,
            device: from_device,
            charged: 0,
            granularity: g,
            mapped: 0,
            shareable: None,
            imported_from: Some(s),
        },
    );
    out.write(h);
    Ok(())
}

/// I `MemGetAllocationPropertiesFromHandle`: a live handle (107000); its
/// properties (a device allocation of huge pages).
pub(crate) fn properties(h: usize) -> Res<Prop> {
    let rt = rt();
    let Some(p) = rt.ext.physical.get(&h) else {
        return Err(bad_physical(&rt, h));
    };
    Ok(Prop {
        handle_type: 0,
        allocation_type: 0,
        mem_attr: ffi::ACL_HBM_MEM_HUGE,
        loc_id: p.device as u32,
        loc_type: ffi::ACL_MEM_LOCATION_TYPE_DEVICE,
    })
}

/// I `MemRetainAllocationHandle`: the physical handle mapped at an address
/// inside a mapping (107000 elsewhere).
pub(crate) fn retain(addr: usize) -> Res<usize> {
    let rt = rt();
    rt.ext
        .reservations
        .range(..=addr)
        .next_back()
        .and_then(|(_, r)| {
            r.maps
                .range(..=addr)
                .next_back()
                .filter(|&(&m, &(s, _, _))| addr < m + s)
                .map(|(_, &(_, h, _))| h)
        })
        .ok_or_else(|| rt_param(format!("virPtr {addr:#x} is not inside a mapping")))
}
