//! Contexts: explicit creation and destruction, the per-thread current
//! context, the default stream of the current context.

use crate::diag::{Error, Res};
use crate::ffi;
use crate::model::ViolationKind;
use crate::prim::Out;
use crate::rt::thread::{self, Transition};
use crate::rt::{rt, stop_streams};
use crate::sync;

/// `aclrtCreateContext`, I `ContextCreate`.
pub(crate) fn create_context(out: Out<usize>, device: i32) -> Res<()> {
    let mut rt = rt();
    rt.check_device(device)?;
    let h = rt.new_context(device, false)?;
    // I `ContextCreate` ends with `ContextSetCurrent` (row THREAD-CREATE).
    thread::apply(Transition::SetCurrent { ctx: h });
    out.write(h);
    Ok(())
}

/// `aclrtDestroyContext`, I `ContextDestroy` (`h` is not NULL).
pub(crate) fn destroy_context(h: usize) -> Res<()> {
    let removed = {
        let mut rt = rt();
        // The runtime answers 107002 (context null) for a destroyed, unknown
        // or foreign handle here, not 107017 (fidelity row CTX-DESTROY-2).
        let ctx = rt
            .context(h)
            .map_err(|e| e.with_code(ffi::ACL_ERROR_RT_CONTEXT_NULL))?;
        if ctx.is_default {
            return Err(Error::new(
                ffi::ACL_ERROR_RT_CONTEXT_NULL,
                format!(
                    "context {h:#x} is the default context of device {}; it cannot be destroyed \
                     explicitly (aclrtResetDevice releases it)",
                    ctx.device
                ),
            ));
        }
        let live = rt.children(Some(h), ctx.device);
        // The context's streams, explicit ones after its default stream.
        let own: Vec<usize> = rt
            .streams
            .values()
            .filter(|s| s.ctx == h && !s.is_default)
            .map(|s| s.handle)
            .collect();
        let mut removed = Vec::new();
        if !live.is_empty() {
            // Strict rule STRICT-CTX-LIVE. The real runtime destroys the
            // context with its streams; report mode (the default) does that too
            // (their queued work is waited for, as aclrtDestroyStream does),
            // and the context's events and memory stay usable until
            // released, as they belong to the device there.
            let err = Error::violation(
                ViolationKind::ReleaseWithLiveChildren,
                ffi::ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                format!(
                    "context {h:#x} still has {}; destroy them first (nothing was released)",
                    live.join(", ")
                ),
            )
            .on(h);
            crate::diag::strict_rule(rt.cfg.strictness, "aclrtDestroyContext", err)?;
            if let Some(s) = own
                .iter()
                .filter_map(|s| rt.streams.get(s))
                .find(|s| sync::on_worker_of(s.shared.id))
            {
                return Err(crate::diag::rt_param(format!(
                    "called from a callback running on stream {:#x} of this context; destroying \
                     the context would wait for that stream, so for itself",
                    s.handle
                )));
            }
            for s in own {
                removed.extend(rt.remove_stream(s));
            }
        }
        removed.extend(rt.remove_context(h));
        // I `ContextDestroy` restores the thread's context after the
        // teardown, except the destroyed one: a thread whose current context
        // it was has none now (row THREAD-DESTROY).
        thread::apply(Transition::DestroyContext { ctx: h });
        removed
    };
    stop_streams(removed);
    Ok(())
}

/// `aclrtSetCurrentContext`, I `ContextSetCurrent`: the context checked
/// again (107002 if it went meanwhile; the argument-checking layer above
/// refuses one that is not tracked with 107000, fidelity row CTX-2).
pub(crate) fn set_current_context(h: usize) -> Res<()> {
    let rt = rt();
    rt.context(h)
        .map_err(|e| e.with_code(ffi::ACL_ERROR_RT_CONTEXT_NULL))?;
    // The device binding is dropped (row THREAD-SET-CURRENT).
    thread::apply(Transition::SetCurrent { ctx: h });
    Ok(())
}

/// `aclrtGetCurrentContext`.
pub(crate) fn get_current_context(out: Out<usize>) -> Res<()> {
    out.write(rt().current()?.handle);
    Ok(())
}

/// `aclrtCtxGetCurrentDefaultStream`.
pub(crate) fn current_default_stream(out: Out<usize>) -> Res<()> {
    out.write(rt().current()?.default_stream);
    Ok(())
}
