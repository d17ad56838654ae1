//! Memory and events shared between processes: `aclrtIpcMemGetExportKey`,
//! `aclrtIpcMemSetImportPid`, `aclrtIpcMemImportByKey`, `aclrtIpcMemClose`,
//! `aclrtIpcMemSetAttr`, `aclrtIpcGetEventHandle`,
//! `aclrtIpcOpenEventHandle` (I `IpcSetMemoryName`, `IpcOpenMemory`,
//! `IpcCloseMemoryByName`, `SetIpcMemPid`, and the driver's checks, which
//! are not public: those answers are the simulator's choices).
//!
//! **The model.** Two processes of the simulator have no device in
//! common, so exported memory moves into a file of the shared-memory file
//! system (`/dev/shm/aclsim_ipc_<pid>_<n>`): at the export its bytes are
//! copied there, and from then on the exporter's allocation is reached
//! through the file's mapping (its address does not change). An import, in
//! any process, maps the same file and enters it into that process's
//! allocation table as device memory at an address of its own: both
//! processes read and write the same bytes, as on the device. The file
//! beside it (`….pids`) holds the trustlist: the export's flags and the
//! pids of `aclrtIpcMemSetImportPid`. `aclrtIpcMemClose` in the exporter
//! removes both files (imports keep their mappings), in an importer it
//! releases that process's imports of the key.
//!
//! The other shared objects follow the same model with the helpers of
//! `shared_files` (a shared file per export, its trustlist beside it, both
//! removed by the exporter's free, destroy or teardown, and at the latest
//! by its exit):
//! physical memory of a shareable handle (`vmm`: the bytes, like IPC
//! memory's), a notify exported by key (`notify`: its flag, a word read and
//! written atomically by both processes) and an IPC event (here: its
//! records' progress, the same way; no trustlist, as the runtime exports an
//! IPC event's memory with pid validation disabled).

use std::collections::BTreeSet;

use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::diag::{Error, Res, rt_param};
use crate::ffi;
use crate::model::Soc;
use crate::prim::{HeapBlock, Out, OutBuf, SharedWords};
use crate::rt::exec::{EventApi, EventShared, EventState, IPC_DEVICE};
use crate::rt::ext::IpcExport;
use crate::rt::mem::{AllocKind, Allocation};
use crate::rt::{EventRec, HandleKind, rt};
use crate::shared_files::{
    Trust, check_trust, created, read_trust, remove_shared, shared_path, write_trust,
};

/// `ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION`.
pub(crate) const EXPORT_DISABLE_PID_VALIDATION: u64 = 0x1;
/// `ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS`.
pub(crate) const IMPORT_ENABLE_PEER_ACCESS: u64 = 0x1;

static NEXT_KEY: AtomicU32 = AtomicU32::new(1);

const KEY_PREFIX: &str = "aclsim_ipc_";

/// The file of a memory key: `aclsim_ipc_<pid>_…` (never the name of an
/// IPC event's file, `aclsim_ipc_event_…`, which is not memory).
fn path_of(key: &str) -> Option<PathBuf> {
    key.strip_prefix(KEY_PREFIX)
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        .then(|| shared_path(key))
        .flatten()
}

/// The trustlist of an IPC memory key: (any pid, listed pids, exporter
/// pid, size).
fn read_trustlist(key: &str) -> Option<(bool, BTreeSet<i32>, u32, usize)> {
    path_of(key)?;
    let t = read_trust(key)?;
    // The key names the exporter: aclsim_ipc_<pid>_<n>_<size>.
    let mut parts = key[KEY_PREFIX.len()..].split('_');
    let owner = parts.next()?.parse().ok()?;
    let _n = parts.next()?;
    let size = parts.next()?.parse().ok()?;
    Some((t.any, t.pids, owner, size))
}

/// The chip's IPC memory feature: both modelled chips have it
/// (`RT_FEATURE_IPC_MEMORY` in `910_B_93` and `dc`).
fn ipc_memory_feature() -> Res<()> {
    Ok(())
}

/// I `IpcSetMemoryName`: `devPtr` is the start of a live `aclrtMalloc`
/// allocation of this process and `size` at most its size (107000); the
/// key (with its NUL) must fit in `len` bytes (107000). Exporting the same
/// start again returns the same key.
pub(crate) fn export(addr: usize, size: usize, key: OutBuf, flags: u64) -> Res<()> {
    ipc_memory_feature()?;
    let mut rt = rt();
    let Some(a) = rt.mem.live.get(&addr) else {
        return Err(rt_param(format!(
            "devPtr {addr:#x} is not the start of a live device allocation"
        ))
        .on(addr));
    };
    if a.kind != AllocKind::Device || !a.on_device {
        return Err(rt_param(format!(
            "devPtr {addr:#x} is {} memory; only device memory of aclrtMalloc is shared",
            a.kind.alloc_fn()
        )));
    }
    if size > a.size {
        return Err(rt_param(format!(
            "size {size} exceeds the {}-byte allocation at {addr:#x}",
            a.size
        )));
    }
    if let Some((k, _)) = rt.ext.ipc_mem.iter().find(|(_, e)| e.addr == addr) {
        let k = k.clone();
        if k.len() + 1 > key.capacity() {
            return Err(rt_param(format!(
                "the key buffer holds {} bytes; the key needs {}",
                key.capacity(),
                k.len() + 1
            )));
        }
        key.write_str(&k);
        return Ok(());
    }
    let name = format!(
        "{KEY_PREFIX}{}_{}_{size}",
        std::process::id(),
        NEXT_KEY.fetch_add(1, Ordering::Relaxed)
    );
    if name.len() + 1 > key.capacity() {
        return Err(rt_param(format!(
            "the key buffer holds {} bytes; the key needs {}",
            key.capacity(),
            name.len() + 1
        )));
    }
    let (old, asize) = (a.block.clone(), a.size);
    let path = path_of(&name).ok_or_else(|| rt_param("internal: key"))?;
    let shared = HeapBlock::shared(&path, asize, true).ok_or_else(|| {
        Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!(
                "memory cannot be shared between processes here (no shared mapping of {})",
                path.display()
            ),
        )
    })?;
    // The bytes so far move into the shared file; the allocation is
    // reached through it from now on (its address stays).
    let (Some(from), Some(to)) = (
        crate::prim::Span::in_block(old.clone(), 0, asize),
        crate::prim::Span::in_block(shared.clone(), 0, asize),
    ) else {
        return Err(rt_param("internal: export spans"));
    };
    crate::prim::copy(&to, &from);
    let any = flags & EXPORT_DISABLE_PID_VALIDATION != 0;
    created(&name);
    write_trust(&name, any, &BTreeSet::new(), &[])?;
    if let Some(a) = rt.mem.live.get_mut(&addr) {
        a.block = shared;
    }
    rt.ext.ipc_kept.push(old);
    rt.ext.ipc_mem.insert(
        name.clone(),
        IpcExport {
            addr,
            pids: BTreeSet::new(),
            any_pid: any,
            imports: 0,
        },
    );
    key.write_str(&name);
    Ok(())
}

/// I `SetIpcMemPid`: a key this process exported (107000); the pids join
/// its trustlist.
pub(crate) fn set_import_pid(key: &str, pids: &[i32]) -> Res<()> {
    let mut rt = rt();
    let Some(e) = rt.ext.ipc_mem.get_mut(key) else {
        return Err(rt_param(format!(
            "{key:?} is not a key this process exported (aclrtIpcMemGetExportKey)"
        )));
    };
    e.pids.extend(pids.iter().copied());
    let (any, pids) = (e.any_pid, e.pids.clone());
    drop(rt);
    write_trust(key, any, &pids, &[])
}

/// I `IpcOpenMemory`: a current context (107002); a live key (107000); the
/// importing process on the trustlist unless the export disabled it, or
/// the exporter itself (207006); maps the shared bytes at an address of
/// this process.
pub(crate) fn import(out: Out<usize>, key: &str) -> Res<()> {
    let mut rt = rt();
    let (ctx, device) = {
        let c = rt.current()?;
        (c.handle, c.device)
    };
    let Some((any, pids, owner, size)) = read_trustlist(key) else {
        return Err(rt_param(format!(
            "{key:?} is not the key of memory exported with aclrtIpcMemGetExportKey (or it was \
             closed)"
        )));
    };
    let trust = Trust {
        any,
        pids,
        info: Vec::new(),
    };
    check_trust(
        &format!("{key:?}"),
        &trust,
        owner,
        "aclrtIpcMemSetImportPid, or export with ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION",
    )?;
    let path = path_of(key).ok_or_else(|| rt_param("internal: key"))?;
    let shared = HeapBlock::shared(&path, size, false)
        .ok_or_else(|| rt_param(format!("cannot map the shared memory of {key:?}")))?;
    // An address of this process's own range for the import.
    let place = HeapBlock::new(size).ok_or_else(|| {
        Error::new(
            ffi::ACL_ERROR_RT_MEMORY_ALLOCATION,
            format!("cannot place {size} bytes"),
        )
    })?;
    let addr = place.addr();
    rt.ext.ipc_kept.push(place);
    rt.ext.ipc_imports.insert(addr, key.to_owned());
    if let Some(e) = rt.ext.ipc_mem.get_mut(key) {
        e.imports += 1;
    }
    rt.mem.live.insert(
        addr,
        Allocation {
            block: shared,
            size,
            charged: 0,
            device,
            ctx,
            kind: AllocKind::Ipc,
            on_device: true,
        },
    );
    out.write(addr);
    Ok(())
}

/// I `IpcCloseMemoryByName`: this process's imports of the key leave its
/// allocation table; a key it exported is destroyed (its files removed;
/// imports elsewhere keep their mappings). Neither: 107000.
pub(crate) fn close(key: &str) -> Res<()> {
    let mut rt = rt();
    let imports: Vec<usize> = rt
        .ext
        .ipc_imports
        .iter()
        .filter(|(_, k)| k.as_str() == key)
        .map(|(&a, _)| a)
        .collect();
    let exported = rt.ext.ipc_mem.contains_key(key);
    if imports.is_empty() && !exported {
        return Err(rt_param(format!(
            "{key:?} is neither imported nor exported by this process"
        )));
    }
    for a in &imports {
        rt.ext.ipc_imports.remove(a);
        if let Some(alloc) = rt.mem.live.remove(a) {
            rt.mem.quarantine(*a, alloc);
        }
    }
    if !imports.is_empty() {
        if let Some(e) = rt.ext.ipc_mem.get_mut(key) {
            e.imports = e.imports.saturating_sub(imports.len() as u32);
        }
        return Ok(());
    }
    rt.ext.ipc_mem.remove(key);
    drop(rt);
    remove_shared(key);
    Ok(())
}

/// I `IpcSetMemoryAttr` (E checked the type and value): a key this process
/// exported or imported (107000); the attribute (the link type) changes
/// nothing the simulator models.
pub(crate) fn set_attr(key: &str) -> Res<()> {
    let rt = rt();
    if !rt.ext.ipc_mem.contains_key(key) && !rt.ext.ipc_imports.values().any(|k| k == key) {
        return Err(rt_param(format!(
            "{key:?} is neither imported nor exported by this process"
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------- events ---

/// The chip's IPC_EVENT feature (`910_B_93` only): 207000 without it.
pub(crate) fn ipc_event_feature(call: &str) -> Res<()> {
    if rt().cfg.soc == Soc::Ascend310P {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!("{call}: the chip has no IPC_EVENT feature"),
        ));
    }
    Ok(())
}

const EVENT_PREFIX: &str = "aclsim_ipc_event_";

/// An IPC event's shared file, made at its creation (as the runtime sets
/// up an IPC event's shared memory when it creates the event): named by
/// this process and the event (`aclsim_ipc_event_<pid>_<event>`), it holds
/// the progress of its records, which an open in another process follows.
/// Where the platform has no shared mapping, the event has none (its
/// handle then opens it in this process only).
pub(crate) fn share_event(shared: &EventShared) {
    let name = format!("{EVENT_PREFIX}{}_{}", std::process::id(), shared.handle);
    if let Some(words) = shared_path(&name).and_then(|p| SharedWords::map(&p, true)) {
        words
            .word(IPC_DEVICE)
            .store(shared.device as u32, Ordering::SeqCst);
        created(&name);
        if shared.ipc.set((words, name.clone(), true)).is_err() {
            remove_shared(&name);
        }
    }
}

/// I `IpcGetEventHandle`: an event of `aclrtCreateEventExWithFlag(ACL_EVENT_IPC)`
/// (107000 otherwise); the handle's bytes name this process and the event
/// (its shared file's name). The runtime exports an IPC event's memory with
/// the pid check disabled: any process may open it.
pub(crate) fn event_handle(ev: usize) -> Res<[u8; 64]> {
    let rt = rt();
    let e = rt.event(ev)?;
    if e.shared.flags & ffi::ACL_EVENT_IPC == 0 {
        return Err(rt_param(format!(
            "event {ev:#x} was not created with ACL_EVENT_IPC (aclrtCreateEventExWithFlag)"
        )));
    }
    let text = match e.shared.ipc.get() {
        Some((_, name, _)) => name.clone(),
        None => format!("{EVENT_PREFIX}{}_{ev}", std::process::id()),
    };
    let mut out = [0u8; 64];
    out[..text.len()].copy_from_slice(text.as_bytes());
    Ok(out)
}

/// I `IpcOpenEventHandle`: a handle of a live IPC event (107000 otherwise:
/// never made, or its event destroyed). In the exporting process the new
/// event handle (in the current context) shares the event's records; in
/// another process it is an IPC event of the current context's device
/// whose waits and queries follow the shared file while the last record
/// was another process's.
pub(crate) fn open_event_handle(handle: &[u8; 64], out: Out<usize>) -> Res<()> {
    let end = handle.iter().position(|&b| b == 0).unwrap_or(64);
    let text = std::str::from_utf8(&handle[..end]).unwrap_or("");
    let Some(rest) = text.strip_prefix(EVENT_PREFIX) else {
        return Err(rt_param(
            "the handle is not an IPC event handle of aclrtIpcGetEventHandle",
        ));
    };
    let mut parts = rest.split('_');
    let pid: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let ev: usize = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let mut rt = rt();
    let shared: Arc<EventShared> = if pid == std::process::id() {
        let shared = rt.event(ev)?.shared.clone();
        debug_assert_eq!(shared.api, EventApi::Ex);
        shared
    } else {
        let ctx = rt.current()?.handle;
        let Some(words) = shared_path(text).and_then(|p| SharedWords::map(&p, false)) else {
            return Err(rt_param(format!(
                "{text:?} is not the handle of a live IPC event (never made, or its event was \
                 destroyed)"
            )));
        };
        let device = rt.current()?.device;
        let (id, handle) = crate::rt::new_handle(HandleKind::Event);
        let shared = Arc::new(EventShared {
            id,
            handle,
            flags: ffi::ACL_EVENT_IPC,
            api: EventApi::Ex,
            device,
            st: Mutex::new(EventState {
                generation: 0,
                rec: None,
                time: None,
            }),
            pending: AtomicUsize::new(0),
            waits: AtomicUsize::new(0),
            op_flags: [AtomicU32::new(u32::MAX), AtomicU32::new(u32::MAX)],
            ipc: OnceLock::new(),
        });
        let _ = shared.ipc.set((words, text.to_owned(), false));
        let dev = rt.device_mut(device)?;
        dev.events += 1;
        rt.events.insert(handle, EventRec { ctx, shared });
        out.write(handle);
        return Ok(());
    };
    let ctx = rt.current()?.handle;
    let dev = rt.device_mut(shared.device)?;
    dev.events += 1;
    let (_, h) = crate::rt::new_handle(HandleKind::Event);
    rt.events.insert(h, EventRec { ctx, shared });
    out.write(h);
    Ok(())
}
