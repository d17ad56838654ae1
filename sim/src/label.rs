//! Labels: `aclrtCreateLabel`, `aclrtDestroyLabel`, `aclrtCreateLabelList`,
//! `aclrtDestroyLabelList`, `aclrtSetLabel`, `aclrtSwitchLabelByIndex`: the
//! implementation's checks (I, `api_impl.cc` `Label*`, the core's `Label`
//! and `Context::LabelSwitchListCreate`), on the state of `rt::ext`.
//!
//! A label is a runtime object of the context current at its creation. Its
//! tasks (set, switch) go only to streams bound to a model: the runtime
//! refuses them on any other stream with 107005 (`RT_ERROR_STREAM_MODEL`).
//! The simulator binds no stream to a model (`aclmdlRIBindStream` is not
//! modelled), so every stream is an ordinary one and those two calls end in
//! that refusal once their other checks pass; creating and destroying labels
//! and label lists is modelled in full.

use crate::diag::{Error, Res, rt_param};
use crate::ffi;
use crate::model::{Soc, ViolationKind};
use crate::prim::Out;
use crate::rt::ext::LabelRec;
use crate::rt::{HandleKind, Runtime, new_handle, rt};

/// The device memory functions of the memory module, handed down by the
/// runtime's C API (this module does not import its peer).
pub(crate) struct DeviceMem {
    /// `DevMemAlloc` + `MemSetSync`: `size` bytes set to a byte.
    pub alloc_filled: fn(usize, u8) -> Res<usize>,
    /// `DevMemFree`.
    pub free: fn(usize) -> Res<()>,
}

/// `sizeof(rtLabelDevInfo)`: the bytes of one label's slot in a label list.
pub(crate) const DEV_INFO_SIZE: usize = 20;
/// The distance between two labels' slots on a STARS chip (the 910B:
/// `RT_CHIP_CLOUD_V2_LABEL_INFO_SIZE`); other chips use [`DEV_INFO_SIZE`].
/// The list's memory is `DEV_INFO_SIZE` per label on every chip.
pub(crate) const STARS_SLOT_STEP: usize = 16;
/// The most labels one list holds (`MAX_UINT16_NUM`).
pub(crate) const LIST_MAX: usize = 65535;

/// The handle guard of the runtime's C API for a label
/// (`RT_VALIDATE_AND_UNWRAP_OBJECT`): NULL passes, anything but a live
/// label is 107017.
pub(crate) fn guard(h: usize) -> Res<()> {
    if h != 0 {
        let rt = rt();
        if !rt.ext.labels.contains_key(&h) {
            return Err(rt.bad_handle(h, HandleKind::Label));
        }
    }
    Ok(())
}

/// The array guard (`RT_VALIDATE_AND_UNWRAP_OBJECT_ARRAY`): each entry in
/// order; a NULL entry passes the guard like a single NULL handle does.
pub(crate) fn guard_all(hs: &[usize]) -> Res<()> {
    hs.iter().try_for_each(|&h| guard(h))
}

/// `COND_RETURN_AND_MSG_INVALID_CONTEXT_LABEL`: a label of another context
/// than the current one is 507031 (`ACL_ERROR_RT_LABEL_CONTEXT`).
fn label_in_current(rt: &Runtime, h: usize) -> Res<()> {
    let ctx = rt.current()?.handle;
    let Some(l) = rt.ext.labels.get(&h) else {
        return Err(rt.bad_handle(h, HandleKind::Label));
    };
    if l.ctx != ctx {
        return Err(Error::new(
            ffi::ACL_ERROR_RT_LABEL_CONTEXT,
            format!(
                "label {h:#x} was created in context {:#x}, not in the current context {ctx:#x}",
                l.ctx
            ),
        ));
    }
    Ok(())
}

/// I `LabelCreate` (no model): a current context (107002); the label
/// belongs to it.
pub(crate) fn create(out: Out<usize>) -> Res<()> {
    let mut rt = rt();
    let ctx = rt.current()?.handle;
    let (_, h) = new_handle(HandleKind::Label);
    rt.ext.labels.insert(h, LabelRec { ctx, list: None });
    out.write(h);
    Ok(())
}

/// I `LabelDestroy`: a current context (107002), the label of it (507031).
/// A label list that holds the label keeps its memory (the list is freed
/// by its own call).
pub(crate) fn destroy(h: usize) -> Res<()> {
    let mut rt = rt();
    label_in_current(&rt, h)?;
    rt.ext.labels.remove(&h);
    Ok(())
}

/// I `LabelSwitchListCreate` (`Context::LabelSwitchListCreate`): a current
/// context (107002); device memory of `sizeof(rtLabelDevInfo)` per label,
/// every byte 0xFF; then each label in order takes its slot (16 bytes
/// apart on the 910B, a STARS chip; 20 on the 310P): a label a list
/// already holds (or one named twice) is 507000, the memory is freed and
/// the labels before it keep their new slots (the runtime does not undo
/// them). The labels' contexts are not checked. A NULL entry passes the
/// guard and the runtime then dereferences it: the simulator reports it
/// and answers 107000 instead.
pub(crate) fn create_list(labels: &[usize], out: Out<usize>, mem: &DeviceMem) -> Res<()> {
    rt().current()?;
    let size = DEV_INFO_SIZE * labels.len();
    let base = (mem.alloc_filled)(size, 0xFF)?;
    let give_back = || {
        // The block was allocated just above; freeing it cannot fail.
        let _ = (mem.free)(base);
    };
    let mut rt = rt();
    let step = if rt.cfg.soc == Soc::Ascend910B {
        STARS_SLOT_STEP
    } else {
        DEV_INFO_SIZE
    };
    for (i, &h) in labels.iter().enumerate() {
        if h == 0 {
            drop(rt);
            give_back();
            return Err(Error::violation(
                ViolationKind::InvalidHandle,
                ffi::ACL_ERROR_RT_PARAM_INVALID,
                format!(
                    "entry {i} of labels is NULL; the runtime passes it the handle guard and \
                     then dereferences it (aclrtCreateLabelList)"
                ),
            ));
        }
        let Some(l) = rt.ext.labels.get_mut(&h) else {
            let e = rt.bad_handle(h, HandleKind::Label);
            drop(rt);
            give_back();
            return Err(e);
        };
        if l.list.is_some() {
            drop(rt);
            give_back();
            return Err(Error::new(
                ffi::ACL_ERROR_RT_INTERNAL_ERROR,
                format!(
                    "label {h:#x} (entry {i}) already has its slot in a label list; a label \
                     joins one list once"
                ),
            ));
        }
        l.list = Some(base + i * step);
    }
    out.write(base);
    Ok(())
}

/// I `LabelSet`: a current context (107002), the label of it (507031), the
/// stream of it (107003); then `Label::Set`: the stream is bound to no
/// model (107005).
pub(crate) fn set(h: usize, stream: usize) -> Res<()> {
    let rt = rt();
    label_in_current(&rt, h)?;
    rt.stream_in_current(stream)?;
    Err(not_a_model_stream(stream, "aclrtSetLabel"))
}

/// I `LabelSwitchByIndex`: a current context (107002), the stream of it
/// (107003), the stream bound to a model (107005).
pub(crate) fn switch_by_index(stream: usize) -> Res<()> {
    let rt = rt();
    rt.current()?;
    rt.stream_in_current(stream)?;
    Err(not_a_model_stream(stream, "aclrtSwitchLabelByIndex"))
}

/// `RT_ERROR_STREAM_MODEL` (107005): label tasks run only in a model.
fn not_a_model_stream(stream: usize, func: &str) -> Error {
    Error::new(
        ffi::ACL_ERROR_RT_STREAM_MODEL,
        format!(
            "{func}: stream {stream:#x} is not bound to a model; label tasks run only on \
             streams of a model (the simulator binds no stream to a model)"
        ),
    )
}

/// `rtsLabelSwitchListCreate`'s count check: 1..=65535, else 107000.
pub(crate) fn check_count(num: usize) -> Res<()> {
    if num == 0 || num > LIST_MAX {
        return Err(rt_param(format!(
            "num {num} is outside (0, {LIST_MAX}] (aclrtCreateLabelList)"
        )));
    }
    Ok(())
}
