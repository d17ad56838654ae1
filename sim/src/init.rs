//! Process init: `aclInit`, `aclFinalize`, `aclFinalizeReference`.

use std::collections::BTreeMap;

use crate::diag::{self, Error, Res, param};
use crate::ffi;
use crate::model::{Leak, ResourceKind, Violation, ViolationKind};
use crate::prim::Out;
use crate::rt::{Runtime, Teardown, rt};

/// `aclInit`.
pub(crate) fn init(config: Option<&str>) -> Res<()> {
    // The exit summary of the reporter, registered as early as the program
    // shows that it uses the runtime.
    crate::report::arm();
    {
        // ACL `aclInitImpl` counts a repeated call before it reads the
        // configuration, so an unreadable path is not noticed then (row
        // INIT-ORDER-2).
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
    }
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
    if rt.finalized && rt.init_refcount == 0 && !rt.is_empty() {
        // Resources created after aclFinalize (the real runtime lets
        // aclrtSetDevice and friends succeed then) must not leak into the
        // runtime this aclInit starts: tear them down first, as leaks.
        let leaks = rt.leaks();
        let td = rt.teardown(false);
        drop(rt);
        td.finish();
        let summary = leaks.len();
        diag::record_leaks(leaks);
        diag::record_violation(Violation {
            function: "aclInit",
            code: ffi::ACL_SUCCESS,
            kind: ViolationKind::UseAfterFinalize,
            message: format!(
                "aclInit: {summary} resource(s) created after the last aclFinalize were still \
                 alive; they were torn down (see the audit's leaks) so that they cannot reach \
                 into the runtime this aclInit starts (aclInit itself succeeds, as the real \
                 runtime's does)"
            ),
            rule: crate::model::rule_name(ViolationKind::UseAfterFinalize, "aclInit", 0),
            handle: None,
            refused: false,
        });
        rt = crate::rt::rt();
    }
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

/// Tears the runtime down under its lock: the leaks, what is left to
/// finish without the lock, and the generation the teardown started.
fn finalize_locked(rt: &mut Runtime) -> (Vec<Leak>, Teardown, u64) {
    let leaks = rt.leaks();
    rt.init_refcount = 0;
    rt.finalized = true;
    let td = rt.teardown(true);
    (leaks, td, crate::sync::generation())
}

/// Strict rule STRICT-FINALIZE-LIVE: with anything alive the teardown
/// happens anyway; [`Strictness::Report`] (the default) answers success, as
/// the real runtime's teardown does, and records (and reports) the
/// violation and the leaks; [`Strictness::Refuse`] answers 507007.
///
/// [`Strictness::Report`]: crate::model::Strictness::Report
/// [`Strictness::Refuse`]: crate::model::Strictness::Refuse
fn finish_finalize(
    (leaks, td, generation): (Vec<Leak>, Teardown, u64),
    strictness: crate::model::Strictness,
    function: &'static str,
) -> Res<()> {
    td.finish();
    if leaks.is_empty() {
        return Ok(());
    }
    if crate::sync::generation() != generation {
        // Another teardown (a reset, or the finalize of a runtime started
        // meanwhile) came while this one waited for running tasks: its
        // records belong to a runtime that is gone, and must not appear in
        // the audit of the one now in force.
        if strictness != crate::model::Strictness::Refuse {
            return Ok(());
        }
        return Err(Error::new(
            ffi::ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
            format!(
                "resources were still alive ({} of them); everything was torn down anyway (not \
                 recorded: the runtime was torn down again before this finalize finished)",
                leaks.len()
            ),
        ));
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
    let (done, strictness) = {
        let mut rt = rt();
        if rt.finalized {
            return Err(Error::new(
                ffi::ACL_ERROR_REPEAT_FINALIZE,
                "already finalized (call aclInit first)",
            ));
        }
        let strictness = rt.cfg.strictness;
        (finalize_locked(&mut rt), strictness)
    };
    finish_finalize(done, strictness, "aclFinalize")
}

/// `aclFinalizeReference`.
pub(crate) fn finalize_reference(out: Out<u64>) -> Res<()> {
    let (done, strictness) = {
        let mut rt = rt();
        if rt.init_refcount == 0 {
            // The ACL layer writes the count (0) before it refuses.
            out.write(0);
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
        (finalize_locked(&mut rt), strictness)
    };
    finish_finalize(done, strictness, "aclFinalizeReference")
}
