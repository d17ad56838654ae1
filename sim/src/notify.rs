//! Notifies: `aclrtCreateNotify`, `aclrtDestroyNotify`, `aclrtRecordNotify`,
//! `aclrtWaitAndResetNotify`, `aclrtGetNotifyId`, and sharing by key
//! (`aclrtNotifyGetExportKey`, `aclrtNotifySetImportPid`,
//! `aclrtNotifyImportByKey`): the implementation's checks (I, `api_impl.cc`
//! `Notify*`), on the state of `rt::ext`.
//!
//! A notify is a one-bit flag of the device: a record task sets it when it
//! executes; a wait task holds its stream until the flag is set, then
//! clears it (so each record releases one wait, and a wait issued before
//! the record blocks until the record executes, unlike an event wait).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use crate::diag::{Error, Res, rt_param};
use crate::ffi;
use crate::model::ViolationKind;
use crate::prim::{Out, OutBuf};
use crate::rt::exec::{KernelCut, Op, WAIT_TIMEOUT_CODE};
use crate::rt::ext::{NotifyExport, NotifyRec, NotifyShared, NotifyWaitEnd};
use crate::rt::{HandleKind, new_handle, rt};

/// `RT_NOTIFY_FLAG_DOWNLOAD_TO_DEV`.
pub(crate) const FLAG_DOWNLOAD_TO_DEV: u64 = 0x1;
/// `RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION` (the export flag).
pub(crate) const EXPORT_DISABLE_PID_VALIDATION: u64 = 0x2;
/// The import flags `RT_NOTIFY_FLAG_DOWNLOAD_TO_DEV |
/// RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS`.
pub(crate) const IMPORT_FLAGS_MAX: u64 = 0x3;

/// A live notify by handle (107017 for anything else).
fn notify(h: usize) -> Res<std::sync::Arc<NotifyShared>> {
    let rt = rt();
    match rt.ext.notifies.get(&h) {
        Some(n) => Ok(n.shared.clone()),
        None => Err(rt.bad_handle(h, HandleKind::Notify)),
    }
}

/// The handle guard of the runtime's C API for a notify
/// (`RT_VALIDATE_AND_UNWRAP_OBJECT`): NULL passes, anything but a live
/// notify is 107017.
pub(crate) fn guard(h: usize) -> Res<()> {
    if h != 0 {
        notify(h)?;
    }
    Ok(())
}

/// I `NotifyCreate` (the flag and the device were checked above): the
/// current context of the device.
pub(crate) fn create(device: i32, out: Out<usize>) -> Res<()> {
    let mut rt = rt();
    let ctx = rt.current()?;
    if ctx.device != device {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_CONTEXT_NULL,
            format!("no context of device {device} is current on this thread"),
        ));
    }
    let (_, h) = new_handle(HandleKind::Notify);
    rt.ext.notifies.insert(
        h,
        NotifyRec {
            shared: NotifyShared::new(device),
            imported: None,
        },
    );
    out.write(h);
    Ok(())
}

/// I `NotifyDestroy`: a current context (107002).
pub(crate) fn destroy(h: usize) -> Res<()> {
    let mut rt = rt();
    rt.current()?;
    if rt.ext.notifies.remove(&h).is_none() {
        return Err(rt.bad_handle(h, HandleKind::Notify));
    }
    // An export key of this notify stays importable only while the notify
    // lives (imports keep the flag they share).
    let gone: Vec<String> = rt
        .ext
        .notify_keys
        .iter()
        .filter(|(_, e)| e.owner == h)
        .map(|(k, _)| k.clone())
        .collect();
    for k in &gone {
        rt.ext.notify_keys.remove(k);
    }
    drop(rt);
    for k in &gone {
        crate::shared_files::remove_shared(k);
    }
    Ok(())
}

/// I `NotifyRecord`: a current context (107002), the stream of it (107003);
/// the record task sets the notify when it executes.
pub(crate) fn record(h: usize, stream: usize) -> Res<()> {
    let (n, sh) = {
        let rt = rt();
        let n = rt
            .ext
            .notifies
            .get(&h)
            .map(|r| r.shared.clone())
            .ok_or_else(|| rt.bad_handle(h, HandleKind::Notify))?;
        let (_, st) = rt.stream_in_current(stream)?;
        (n, st.shared.clone())
    };
    let ticket = sh.ticket();
    sh.submit(
        Op::Native {
            name: "record notify",
            category: "notify",
            blocking: false,
            run: Box::new(move |_| {
                n.record();
                Ok(None)
            }),
        },
        ticket,
    )?;
    Ok(())
}

/// I `NotifyWait`: a current context (107002), the stream of it (107003),
/// an imported notify only on its own device (107000); the wait task holds
/// the stream until the notify is set (then resets it), or faults with
/// 107020 after `timeout` seconds (`None`: no limit).
pub(crate) fn wait(h: usize, stream: usize, timeout: Option<u32>) -> Res<()> {
    let (n, sh) = {
        let rt = rt();
        let rec = rt
            .ext
            .notifies
            .get(&h)
            .ok_or_else(|| rt.bad_handle(h, HandleKind::Notify))?;
        let n = rec.shared.clone();
        let imported = rec.imported.is_some();
        let (_, st) = rt.stream_in_current(stream)?;
        if imported && st.device != n.device {
            return Err(rt_param(format!(
                "the IPC notify {h:#x} was created on device {}; its wait task must be issued \
                 on a stream of that device, not of device {}",
                n.device, st.device
            )));
        }
        (n, st.shared.clone())
    };
    let limit = timeout
        .filter(|&t| t > 0)
        .map(|t| Duration::from_secs(t.into()));
    let ticket = sh.ticket();
    sh.submit(
        Op::Native {
            name: "wait notify",
            category: "wait",
            blocking: true,
            run: Box::new(move |stopped| {
                let start = Instant::now();
                match n.wait_and_reset(stopped, limit.map(|l| start + l)) {
                    NotifyWaitEnd::Set => Ok(None),
                    NotifyWaitEnd::Stopped => Err(KernelCut),
                    NotifyWaitEnd::TimedOut => Ok(Some((
                        WAIT_TIMEOUT_CODE,
                        format!(
                            "waiting for notify {} timed out after {:?} (aclrtWaitAndResetNotify)",
                            n.id,
                            start.elapsed()
                        ),
                    ))),
                }
            }),
        },
        ticket,
    )?;
    Ok(())
}

/// I `GetNotifyID`: a current context (107002).
pub(crate) fn id(h: usize, out: Out<u32>) -> Res<()> {
    let rt = rt();
    rt.current()?;
    let id = rt
        .ext
        .notifies
        .get(&h)
        .map(|r| r.shared.id)
        .ok_or_else(|| rt.bad_handle(h, HandleKind::Notify))?;
    out.write(id);
    Ok(())
}

/// The export key of a notify: names the process and the notify, so that
/// an import can tell a key of this process from another's.
fn key_of(id: u32) -> String {
    format!("aclsim_notify_{}_{id}", std::process::id())
}

/// I `IpcSetNotifyName`: the key (with its NUL) must fit in `len` bytes
/// (107000); exporting again returns the same key.
pub(crate) fn export_key(h: usize, key: OutBuf, flags: u64) -> Res<()> {
    let mut rt = rt();
    let n = rt
        .ext
        .notifies
        .get(&h)
        .ok_or_else(|| rt.bad_handle(h, HandleKind::Notify))?;
    if n.imported.is_some() {
        return Err(rt_param(format!(
            "notify {h:#x} was imported by key; only the creating process exports it"
        )));
    }
    let shared = n.shared.clone();
    let name = key_of(shared.id);
    if name.len() + 1 > key.capacity() {
        return Err(rt_param(format!(
            "the key buffer holds {} bytes; the key needs {}",
            key.capacity(),
            name.len() + 1
        )));
    }
    if !rt.ext.notify_keys.contains_key(&name) {
        // The flag moves into a shared file that another process's import
        // maps (where the platform has none, the key serves this process).
        if let Some(words) = crate::shared_files::shared_path(&name)
            .and_then(|p| crate::prim::SharedWords::map(&p, true))
        {
            crate::shared_files::created(&name);
            shared.share(words);
        }
        rt.ext.notify_keys.insert(
            name.clone(),
            NotifyExport {
                shared,
                owner: h,
                pids: BTreeSet::new(),
                any_pid: false,
            },
        );
    }
    let Some(entry) = rt.ext.notify_keys.get_mut(&name) else {
        return Err(rt_param("internal: notify key"));
    };
    entry.any_pid |= flags & EXPORT_DISABLE_PID_VALIDATION != 0;
    if entry.shared.is_shared() {
        crate::shared_files::write_trust(&name, entry.any_pid, &entry.pids, &[])?;
    }
    key.write_str(&name);
    Ok(())
}

/// `rtsNotifySetImportPid`: the notify must have been exported (107000);
/// the pids join its trustlist.
pub(crate) fn set_import_pid(h: usize, pids: &[i32]) -> Res<()> {
    let mut rt = rt();
    let id = rt
        .ext
        .notifies
        .get(&h)
        .map(|r| r.shared.id)
        .ok_or_else(|| rt.bad_handle(h, HandleKind::Notify))?;
    let Some(e) = rt.ext.notify_keys.get_mut(&key_of(id)) else {
        return Err(rt_param(format!(
            "notify {h:#x} has no export key yet (aclrtNotifyGetExportKey first)"
        )));
    };
    e.pids.extend(pids.iter().copied());
    if e.shared.is_shared() {
        crate::shared_files::write_trust(&key_of(id), e.any_pid, &e.pids, &[])?;
    }
    Ok(())
}

/// I `IpcOpenNotify`: a key of a live notify (107000 otherwise: never
/// exported, or its notify destroyed); in another process than the
/// exporter, that process on the trustlist unless the export disabled it
/// (207006; the exporting process imports its own notify freely). The new
/// handle shares the notify's flag (in another process, through the shared
/// file).
pub(crate) fn import(out: Out<usize>, key: &str) -> Res<()> {
    let mut rt = rt();
    let shared = match rt.ext.notify_keys.get(key) {
        Some(e) => e.shared.clone(),
        None => {
            let owner: Option<u32> = key
                .strip_prefix("aclsim_notify_")
                .and_then(|rest| rest.split('_').next())
                .and_then(|p| p.parse().ok())
                .filter(|&p| p != std::process::id());
            let unknown = || {
                Error::violation(
                    ViolationKind::InvalidHandle,
                    ffi::ACL_ERROR_RT_PARAM_INVALID,
                    format!("{key:?} is not the export key of a live notify"),
                )
            };
            let Some(owner) = owner else {
                return Err(unknown());
            };
            let Some(trust) = crate::shared_files::read_trust(key) else {
                return Err(unknown());
            };
            crate::shared_files::check_trust(
                &format!("notify key {key:?}"),
                &trust,
                owner,
                "aclrtNotifySetImportPid, or export with \
                 ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION",
            )?;
            let words = crate::shared_files::shared_path(key)
                .and_then(|p| crate::prim::SharedWords::map(&p, false))
                .ok_or_else(unknown)?;
            NotifyShared::imported(words)
        }
    };
    rt.current()?;
    let (_, h) = new_handle(HandleKind::Notify);
    rt.ext.notifies.insert(
        h,
        NotifyRec {
            shared,
            imported: Some(key.to_owned()),
        },
    );
    out.write(h);
    Ok(())
}
