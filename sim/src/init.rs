//! Process init: `aclInit`, `aclFinalize`, `aclFinalizeReference`.

use std::collections::BTreeMap;

use crate::diag::{self, Error, Res, param};
use crate::ffi;
use crate::model::{Leak, ResourceKind, ViolationKind};
use crate::prim::Out;
use crate::rt::{Runtime, Teardown, rt};

/// `aclInit`.
pub(crate) fn init(config: Option<&str>) -> Res<()> {
    let content = match config {
        None | Some("") => None,
        Some(path) => Some(std::fs::read(path).map_err(|e| {
            Error::new(
                ffi::ACL_ERROR_INVALID_FILE,
                format!("cannot read the configuration file {path:?}: {e}"),
            )
        })?),
    };
    let mut rt = rt();
    if rt.init_refcount > 0 {
        rt.init_refcount += 1;
        return Err(Error::new(
            ffi::ACL_ERROR_REPEAT_INITIALIZE,
            format!(
                "already initialized (reference count now {}); this code may be ignored",
                rt.init_refcount
            ),
        ));
    }
    match &rt.first_config {
        Some(first) if *first != content => {
            return Err(param(
                "the configuration differs from the one of the first aclInit of this process",
            ));
        }
        Some(_) => {}
        None => rt.first_config = Some(content),
    }
    if rt.is_empty() {
        // Pick up a configuration changed since the runtime last started.
        rt.started = false;
        rt.start();
    }
    rt.init_refcount = 1;
    rt.finalized = false;
    Ok(())
}

fn finalize_locked(rt: &mut Runtime) -> (Vec<Leak>, Teardown) {
    let leaks = rt.leaks();
    rt.init_refcount = 0;
    rt.finalized = true;
    let td = rt.teardown(true);
    (leaks, td)
}

/// Strict rule STRICT-FINALIZE-LIVE: 507007 with anything alive (the
/// teardown happens anyway); [`Strictness::HardwareLike`] answers success,
/// as the real runtime's teardown does, and still records the violation
/// and the leaks.
///
/// [`Strictness::HardwareLike`]: crate::model::Strictness::HardwareLike
fn finish_finalize(
    leaks: Vec<Leak>,
    td: Teardown,
    strictness: crate::model::Strictness,
    function: &'static str,
) -> Res<()> {
    td.finish();
    if leaks.is_empty() {
        return Ok(());
    }
    let mut counts: BTreeMap<ResourceKind, usize> = BTreeMap::new();
    for l in &leaks {
        *counts.entry(l.kind).or_default() += 1;
    }
    let summary: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k:?}")).collect();
    diag::record_leaks(leaks);
    let err = Error::violation(
        ViolationKind::FinalizeWithLiveResources,
        ffi::ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
        format!(
            "resources were still alive ({}); everything was torn down anyway (see the audit's \
             leaks)",
            summary.join(", ")
        ),
    );
    diag::strict_rule(strictness, function, err)
}

/// `aclFinalize`.
pub(crate) fn finalize() -> Res<()> {
    let leaks = {
        let mut rt = rt();
        if rt.finalized {
            return Err(Error::new(
                ffi::ACL_ERROR_REPEAT_FINALIZE,
                "already finalized (call aclInit first)",
            ));
        }
        let strictness = rt.cfg.strictness;
        let (leaks, td) = finalize_locked(&mut rt);
        (leaks, td, strictness)
    };
    let (leaks, td, strictness) = leaks;
    finish_finalize(leaks, td, strictness, "aclFinalize")
}

/// `aclFinalizeReference`.
pub(crate) fn finalize_reference(out: Out<u64>) -> Res<()> {
    let leaks = {
        let mut rt = rt();
        if rt.init_refcount == 0 {
            return Err(Error::new(
                ffi::ACL_ERROR_REPEAT_FINALIZE,
                "the initialization reference count is already 0",
            ));
        }
        rt.init_refcount -= 1;
        out.write(rt.init_refcount);
        if rt.init_refcount > 0 {
            return Ok(());
        }
        let strictness = rt.cfg.strictness;
        let (leaks, td) = finalize_locked(&mut rt);
        (leaks, td, strictness)
    };
    let (leaks, td, strictness) = leaks;
    finish_finalize(leaks, td, strictness, "aclFinalizeReference")
}
