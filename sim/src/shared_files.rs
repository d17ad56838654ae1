//! The files two processes of the simulator share (`/dev/shm/aclsim_…`),
//! for every kind of shared object (IPC memory, shareable physical memory,
//! exported notifies, IPC events): their names, the trustlist beside each
//! (`….pids`), and their removal by the exporter's close, free or
//! teardown, and at the latest at the process's exit. No runtime state:
//! the runtime's layers (`rt`) and the kinds' modules (`ipc`, `vmm`,
//! `notify`) use it.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;
use std::sync::{Mutex, Once};

use crate::diag::{Error, Res, rt_param};
use crate::ffi;
use crate::prim::shm;
use crate::sync::lock;

/// The shared files this process created (by name; each with its `.pids`
/// file beside it): removed when their exporter closes or frees the
/// object, at a teardown, and at the latest when the process exits.
static CREATED: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());

/// The exit hook that removes [`CREATED`]'s files, registered once.
static EXIT_HOOK: Once = Once::new();

/// The path of the shared file `name`: a name of the simulator's
/// (`aclsim_…`, letters, digits and `_`), nothing else.
pub(crate) fn shared_path(name: &str) -> Option<PathBuf> {
    let ok = name.starts_with("aclsim_")
        && name.len() < 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    ok.then(|| shm::dir().join(name))
}

/// Records that this process created the files of `name` (so that they are
/// removed at the process's exit if nothing removed them before).
pub(crate) fn created(name: &str) {
    EXIT_HOOK.call_once(|| {
        // Without the hook (Miri, or the C library out of room) the files
        // are still removed by a close, a free or a teardown.
        let _ = crate::prim::exit::at_exit(remove_created_at_exit);
    });
    lock(&CREATED).insert(name.to_owned());
}

/// The exit handler: removes the files this process still owns. Never
/// waits for a lock (a thread still exporting at exit: its files stay) and
/// never unwinds.
extern "C" fn remove_created_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        let Ok(names) = CREATED.try_lock() else {
            return;
        };
        for name in names.iter() {
            unlink(name);
        }
    });
}

fn unlink(name: &str) {
    if let Some(p) = shared_path(name) {
        let _ = fs::remove_file(p.with_extension("pids"));
        let _ = fs::remove_file(p);
    }
}

/// Removes the files of `name` (its exporter closed or freed it, or tore
/// down): imports elsewhere keep their mappings, new imports are refused.
pub(crate) fn remove_shared(name: &str) {
    unlink(name);
    lock(&CREATED).remove(name);
}

/// A trustlist file: the export's flag, the pids allowed to import, and
/// the numbers an importer needs (the device, a size...).
pub(crate) struct Trust {
    /// Exported with pid validation disabled.
    pub any: bool,
    pub pids: BTreeSet<i32>,
    pub info: Vec<u64>,
}

/// Writes the trustlist of `name`: `any` or `listed`, a line `info …`,
/// then one pid a line.
pub(crate) fn write_trust(name: &str, any: bool, pids: &BTreeSet<i32>, info: &[u64]) -> Res<()> {
    let path = shared_path(name)
        .ok_or_else(|| rt_param("internal: shared name"))?
        .with_extension("pids");
    let mut text = String::from(if any { "any\ninfo" } else { "listed\ninfo" });
    for v in info {
        text.push_str(&format!(" {v}"));
    }
    text.push('\n');
    for p in pids {
        text.push_str(&format!("{p}\n"));
    }
    // Written whole under another name, then renamed: a reader in another
    // process never sees half a list.
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    fs::write(&tmp, text)
        .and_then(|()| fs::rename(&tmp, &path))
        .map_err(|e| {
            Error::new(
                ffi::ACL_ERROR_RT_INTERNAL_ERROR,
                format!("cannot write {}: {e}", path.display()),
            )
        })
}

/// The trustlist of `name`, if its exporter still shares it.
pub(crate) fn read_trust(name: &str) -> Option<Trust> {
    let text = fs::read_to_string(shared_path(name)?.with_extension("pids")).ok()?;
    let mut lines = text.lines();
    let any = lines.next()? == "any";
    let mut info = Vec::new();
    let mut pids = BTreeSet::new();
    for l in lines {
        if let Some(rest) = l.strip_prefix("info") {
            info = rest
                .split_whitespace()
                .filter_map(|v| v.parse().ok())
                .collect();
        } else if let Ok(p) = l.parse() {
            pids.insert(p);
        }
    }
    Some(Trust { any, pids, info })
}

/// The driver's pid check of an import (its answers are not public: the
/// simulator's choice is IPC memory's, 207006): the exporter itself, a
/// listed pid, or an export with pid validation disabled.
pub(crate) fn check_trust(what: &str, t: &Trust, owner: u32, how: &str) -> Res<()> {
    let me = std::process::id();
    if owner != me && !t.any && !t.pids.contains(&(me as i32)) {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_NO_PERMISSION,
            format!("process {me} is not on the trustlist of {what} ({how})"),
        ));
    }
    Ok(())
}
