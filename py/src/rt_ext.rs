//! `acl.rt` functions of the runtime's newer resources: device information
//! and control, stream attributes, notifies, IPC memory and events, virtual
//! memory and value tasks.
//!
//! The conventions are those of [`crate::rt`]: positional arguments only,
//! outputs first and `ret` last, plain `int`s for addresses and handles,
//! runtime failures only as a non-zero `ret`, `TypeError("acl.rt.<name>
//! args parse failed")` for malformed arguments. Keys are `str`, pid
//! allow-lists are lists (or tuples) of `int`, an IPC event handle is
//! `bytes` (64), and a physical-memory property is a `dict` of the C
//! structure's fields in snake case. The GIL is released around every call
//! that queues work on a stream (a full queue makes it wait).
#![deny(unsafe_code)]

use crate::args::{Arg, no_keywords, parse};
use crate::ffi_ext::{self as ffi, PhysProp};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use std::ffi::CString;

macro_rules! pyfn {
    ($name:ident, $full:literal, $doc:literal, ($($a:ident: $t:ty),*) -> $r:ty, |$py:ident| $body:expr) => {
        #[doc = $doc]
        #[pyfunction(signature = (*args, **kwargs))]
        pub fn $name(
            $py: Python<'_>,
            args: &Bound<'_, PyTuple>,
            kwargs: Option<&Bound<'_, PyDict>>,
        ) -> PyResult<$r> {
            no_keywords(kwargs, $full)?;
            crate::fork::check()?;
            #[allow(unused_parens)]
            let ($($a,)*): ($($t,)*) = parse(args, $full)?;
            let _ = $py;
            Ok($body)
        }
    };
}

/// `s`: a `str` without NUL (a key).
pub struct Key(CString);

impl Arg for Key {
    fn from_py(o: &Bound<'_, PyAny>) -> Option<Self> {
        let s = o.cast::<PyString>().ok()?.to_str().ok()?;
        CString::new(s).ok().map(Key)
    }
}

/// A list or tuple of `int`s that fit a C `int` (pids).
pub struct Pids(Vec<i32>);

impl Arg for Pids {
    fn from_py(o: &Bound<'_, PyAny>) -> Option<Self> {
        let items: Vec<Bound<'_, PyAny>> = if let Ok(l) = o.cast::<PyList>() {
            l.iter().collect()
        } else {
            o.cast::<PyTuple>().ok()?.iter().collect()
        };
        items
            .iter()
            .map(|i| i.extract::<i32>().ok())
            .collect::<Option<Vec<_>>>()
            .map(Pids)
    }
}

/// `bytes` (an IPC event handle).
pub struct Bytes(Vec<u8>);

impl Arg for Bytes {
    fn from_py(o: &Bound<'_, PyAny>) -> Option<Self> {
        let b = o.cast::<PyBytes>().ok()?;
        let v = b.as_bytes();
        (v.len() <= aclrt_sys::ACL_IPC_EVENT_HANDLE_SIZE).then(|| Bytes(v.to_vec()))
    }
}

/// A `dict` with the fields of `aclrtPhysicalMemProp`: `handle_type`,
/// `allocation_type`, `mem_attr`, `location_id`, `location_type` (missing
/// ones are 0; an unknown key or a non-`int` value is a parse error).
pub struct Prop(PhysProp);

impl Arg for Prop {
    fn from_py(o: &Bound<'_, PyAny>) -> Option<Self> {
        let d = o.cast::<PyDict>().ok()?;
        let mut p = PhysProp::default();
        for (k, v) in d.iter() {
            let v = u32::from_py(&v)?;
            match k.cast::<PyString>().ok()?.to_str().ok()? {
                "handle_type" => p.handle_type = v,
                "allocation_type" => p.allocation_type = v,
                "mem_attr" => p.mem_attr = v,
                "location_id" => p.location_id = v,
                "location_type" => p.location_type = v,
                _ => return None,
            }
        }
        Some(Prop(p))
    }
}

/// A list or tuple of `(flags, location_id, location_type)` triples
/// (`aclrtMemAccessDesc`s).
pub struct Access(Vec<(u32, u32, u32)>);

impl Arg for Access {
    fn from_py(o: &Bound<'_, PyAny>) -> Option<Self> {
        let items: Vec<Bound<'_, PyAny>> = if let Ok(l) = o.cast::<PyList>() {
            l.iter().collect()
        } else {
            o.cast::<PyTuple>().ok()?.iter().collect()
        };
        items
            .iter()
            .map(|i| {
                let t = i.cast::<PyTuple>().ok()?;
                if t.len() != 3 {
                    return None;
                }
                Some((
                    u32::from_py(&t.get_item(0).ok()?)?,
                    u32::from_py(&t.get_item(1).ok()?)?,
                    u32::from_py(&t.get_item(2).ok()?)?,
                ))
            })
            .collect::<Option<Vec<_>>>()
            .map(Access)
    }
}

// ---- device information and control --------------------------------------

pyfn!(get_device_info, "acl.rt.get_device_info",
    "get_device_info(device_id, attr) -> (value, ret): aclrtGetDeviceInfo.",
    (d: u32, attr: u32) -> (i64, i32), |py| ffi::get_device_info(d, attr));
pyfn!(get_device_capability, "acl.rt.get_device_capability",
    "get_device_capability(device_id, feature) -> (value, ret): aclrtGetDeviceCapability.",
    (d: i32, f: u32) -> (i32, i32), |py| ffi::get_device_capability(d, f));
pyfn!(query_device_status, "acl.rt.query_device_status",
    "query_device_status(device_id) -> (status, ret): aclrtQueryDeviceStatus (0 normal, 1 abnormal).",
    (d: i32) -> (u32, i32), |py| ffi::query_device_status(d));
pyfn!(device_get_bare_tgid, "acl.rt.device_get_bare_tgid",
    "device_get_bare_tgid() -> (pid, ret): aclrtDeviceGetBareTgid.",
    () -> (i32, i32), |py| ffi::device_get_bare_tgid());

/// get_device_utilization_rate(device_id) -> (dict, ret):
/// aclrtGetDeviceUtilizationRate; the dict has `cube_utilization`,
/// `vector_utilization`, `aicpu_utilization`, `memory_utilization`
/// (percent, -1 where unknown).
#[pyfunction(signature = (*args, **kwargs))]
pub fn get_device_utilization_rate<'py>(
    py: Python<'py>,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Bound<'py, PyDict>, i32)> {
    const NAME: &str = "acl.rt.get_device_utilization_rate";
    no_keywords(kwargs, NAME)?;
    crate::fork::check()?;
    let (d,): (i32,) = parse(args, NAME)?;
    let (v, ret) = ffi::get_device_utilization_rate(d);
    let out = PyDict::new(py);
    for (k, x) in [
        "cube_utilization",
        "vector_utilization",
        "aicpu_utilization",
        "memory_utilization",
    ]
    .into_iter()
    .zip(v)
    {
        out.set_item(k, x)?;
    }
    Ok((out, ret))
}

pyfn!(get_device_res_limit, "acl.rt.get_device_res_limit",
    "get_device_res_limit(device_id, type) -> (value, ret): aclrtGetDeviceResLimit.",
    (d: i32, k: u32) -> (u32, i32), |py| ffi::get_device_res_limit(d, k));
pyfn!(set_device_res_limit, "acl.rt.set_device_res_limit",
    "set_device_res_limit(device_id, type, value) -> ret: aclrtSetDeviceResLimit.",
    (d: i32, k: u32, v: u32) -> i32, |py| ffi::set_device_res_limit(d, k, v));
pyfn!(reset_device_res_limit, "acl.rt.reset_device_res_limit",
    "reset_device_res_limit(device_id) -> ret: aclrtResetDeviceResLimit.",
    (d: i32) -> i32, |py| ffi::reset_device_res_limit(d));
pyfn!(set_device_sat_mode, "acl.rt.set_device_sat_mode",
    "set_device_sat_mode(mode) -> ret: aclrtSetDeviceSatMode (0 saturation, 1 Inf/NaN).",
    (m: u32) -> i32, |py| ffi::set_device_sat_mode(m));
pyfn!(get_device_sat_mode, "acl.rt.get_device_sat_mode",
    "get_device_sat_mode() -> (mode, ret): aclrtGetDeviceSatMode.",
    () -> (u32, i32), |py| ffi::get_device_sat_mode());

// ---- stream attributes -----------------------------------------------------

pyfn!(stream_get_id, "acl.rt.stream_get_id",
    "stream_get_id(stream) -> (stream_id, ret): aclrtStreamGetId.",
    (s: u64) -> (i32, i32), |py| ffi::stream_get_id(s));
pyfn!(stream_get_flags, "acl.rt.stream_get_flags",
    "stream_get_flags(stream) -> (flags, ret): aclrtStreamGetFlags.",
    (s: u64) -> (u32, i32), |py| ffi::stream_get_flags(s));
pyfn!(stream_get_priority, "acl.rt.stream_get_priority",
    "stream_get_priority(stream) -> (priority, ret): aclrtStreamGetPriority.",
    (s: u64) -> (u32, i32), |py| ffi::stream_get_priority(s));

// ---- notifies --------------------------------------------------------------

pyfn!(create_notify, "acl.rt.create_notify",
    "create_notify(flag) -> (notify, ret): aclrtCreateNotify.",
    (f: u64) -> (u64, i32), |py| ffi::create_notify(f));
pyfn!(destroy_notify, "acl.rt.destroy_notify",
    "destroy_notify(notify) -> ret: aclrtDestroyNotify.",
    (h: u64) -> i32, |py| ffi::destroy_notify(h));
pyfn!(record_notify, "acl.rt.record_notify",
    "record_notify(notify, stream) -> ret: aclrtRecordNotify (GIL released).",
    (h: u64, s: u64) -> i32, |py| crate::gil::blocking(py, move || ffi::record_notify(h, s)));
pyfn!(wait_and_reset_notify, "acl.rt.wait_and_reset_notify",
    "wait_and_reset_notify(notify, stream, timeout) -> ret: aclrtWaitAndResetNotify (GIL released).",
    (h: u64, s: u64, t: u32) -> i32,
    |py| crate::gil::blocking(py, move || ffi::wait_and_reset_notify(h, s, t)));
pyfn!(get_notify_id, "acl.rt.get_notify_id",
    "get_notify_id(notify) -> (notify_id, ret): aclrtGetNotifyId.",
    (h: u64) -> (u32, i32), |py| ffi::get_notify_id(h));
pyfn!(notify_get_export_key, "acl.rt.notify_get_export_key",
    "notify_get_export_key(notify, len, flags) -> (key, ret): aclrtNotifyGetExportKey.",
    (h: u64, len: u64, f: u64) -> (String, i32),
    |py| ffi::notify_get_export_key(h, len as usize, f));
pyfn!(notify_set_import_pid, "acl.rt.notify_set_import_pid",
    "notify_set_import_pid(notify, pid_list) -> ret: aclrtNotifySetImportPid.",
    (h: u64, pids: Pids) -> i32, |py| { let mut v = pids.0; ffi::notify_set_import_pid(h, &mut v) });
pyfn!(notify_import_by_key, "acl.rt.notify_import_by_key",
    "notify_import_by_key(key, flags) -> (notify, ret): aclrtNotifyImportByKey.",
    (k: Key, f: u64) -> (u64, i32), |py| ffi::notify_import_by_key(&k.0, f));

// ---- IPC memory and events -------------------------------------------------

pyfn!(ipc_mem_get_export_key, "acl.rt.ipc_mem_get_export_key",
    "ipc_mem_get_export_key(dev_ptr, size, len, flags) -> (key, ret): aclrtIpcMemGetExportKey.",
    (ptr: u64, size: u64, len: u64, f: u64) -> (String, i32),
    |py| ffi::ipc_mem_get_export_key(ptr, size, len as usize, f));
pyfn!(ipc_mem_set_import_pid, "acl.rt.ipc_mem_set_import_pid",
    "ipc_mem_set_import_pid(key, pid_list) -> ret: aclrtIpcMemSetImportPid.",
    (k: Key, pids: Pids) -> i32, |py| { let mut v = pids.0; ffi::ipc_mem_set_import_pid(&k.0, &mut v) });
pyfn!(ipc_mem_import_by_key, "acl.rt.ipc_mem_import_by_key",
    "ipc_mem_import_by_key(key, flags) -> (dev_ptr, ret): aclrtIpcMemImportByKey.",
    (k: Key, f: u64) -> (u64, i32), |py| ffi::ipc_mem_import_by_key(&k.0, f));
pyfn!(ipc_mem_close, "acl.rt.ipc_mem_close",
    "ipc_mem_close(key) -> ret: aclrtIpcMemClose.",
    (k: Key) -> i32, |py| ffi::ipc_mem_close(&k.0));
pyfn!(mem_get_address_range, "acl.rt.mem_get_address_range",
    "mem_get_address_range(ptr) -> (base, size, ret): aclrtMemGetAddressRange.",
    (ptr: u64) -> (u64, u64, i32), |py| ffi::mem_get_address_range(ptr));

/// ipc_get_event_handle(event) -> (handle: bytes, ret): aclrtIpcGetEventHandle.
#[pyfunction(signature = (*args, **kwargs))]
pub fn ipc_get_event_handle<'py>(
    py: Python<'py>,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Bound<'py, PyBytes>, i32)> {
    const NAME: &str = "acl.rt.ipc_get_event_handle";
    no_keywords(kwargs, NAME)?;
    crate::fork::check()?;
    let (e,): (u64,) = parse(args, NAME)?;
    let (b, ret) = ffi::ipc_get_event_handle(e);
    Ok((PyBytes::new(py, &b), ret))
}
pyfn!(ipc_open_event_handle, "acl.rt.ipc_open_event_handle",
    "ipc_open_event_handle(handle: bytes) -> (event, ret): aclrtIpcOpenEventHandle.",
    (h: Bytes) -> (u64, i32), |py| ffi::ipc_open_event_handle(&h.0));

// ---- virtual memory --------------------------------------------------------

pyfn!(reserve_mem_address, "acl.rt.reserve_mem_address",
    "reserve_mem_address(size, alignment, expect_ptr, flags) -> (vir_ptr, ret): aclrtReserveMemAddress.",
    (size: u64, align: u64, expect: u64, f: u64) -> (u64, i32),
    |py| ffi::reserve_mem_address(size, align, expect, f));
pyfn!(release_mem_address, "acl.rt.release_mem_address",
    "release_mem_address(vir_ptr) -> ret: aclrtReleaseMemAddress.",
    (v: u64) -> i32, |py| ffi::release_mem_address(v));
pyfn!(malloc_physical, "acl.rt.malloc_physical",
    "malloc_physical(size, prop: dict, flags) -> (handle, ret): aclrtMallocPhysical.",
    (size: u64, prop: Prop, f: u64) -> (u64, i32), |py| ffi::malloc_physical(size, prop.0, f));
pyfn!(free_physical, "acl.rt.free_physical",
    "free_physical(handle) -> ret: aclrtFreePhysical.",
    (h: u64) -> i32, |py| ffi::free_physical(h));
pyfn!(map_mem, "acl.rt.map_mem",
    "map_mem(vir_ptr, size, offset, handle, flags) -> ret: aclrtMapMem.",
    (v: u64, size: u64, off: u64, h: u64, f: u64) -> i32, |py| ffi::map_mem(v, size, off, h, f));
pyfn!(unmap_mem, "acl.rt.unmap_mem",
    "unmap_mem(vir_ptr) -> ret: aclrtUnmapMem.",
    (v: u64) -> i32, |py| ffi::unmap_mem(v));
pyfn!(mem_set_access, "acl.rt.mem_set_access",
    "mem_set_access(vir_ptr, size, [(flags, location_id, location_type), ...]) -> ret: aclrtMemSetAccess.",
    (v: u64, size: u64, d: Access) -> i32, |py| ffi::mem_set_access(v, size, &d.0));
pyfn!(mem_get_allocation_granularity, "acl.rt.mem_get_allocation_granularity",
    "mem_get_allocation_granularity(prop: dict, option) -> (granularity, ret): aclrtMemGetAllocationGranularity.",
    (prop: Prop, o: u32) -> (u64, i32), |py| ffi::mem_get_allocation_granularity(prop.0, o));

// ---- value tasks -----------------------------------------------------------

pyfn!(value_write, "acl.rt.value_write",
    "value_write(dev_ptr, value, flag, stream) -> ret: aclrtValueWrite (GIL released).",
    (a: u64, v: u64, f: u32, s: u64) -> i32,
    |py| crate::gil::blocking(py, move || ffi::value_write(a, v, f, s)));
pyfn!(value_wait, "acl.rt.value_wait",
    "value_wait(dev_ptr, value, flag, stream) -> ret: aclrtValueWait (GIL released).",
    (a: u64, v: u64, f: u32, s: u64) -> i32,
    |py| crate::gil::blocking(py, move || ffi::value_wait(a, v, f, s)));

// ---- exception reports -----------------------------------------------------

/// The Python function the exception reports go to (set by
/// `set_exception_info_callback`); locked only with the GIL held.
static EXCEPTION_FN: std::sync::Mutex<Option<Py<PyAny>>> = std::sync::Mutex::new(None);

/// Hands one report to the Python function (on the runtime's thread that
/// reports it: the failed stream's worker), attached to the interpreter
/// unless it is shutting down; an exception it raises is reported as
/// unraisable (printed), never propagated into the runtime.
fn deliver_exception(facts: ffi::ExceptionFacts) {
    crate::gil::attach_unless_exiting(|py| {
        let f = EXCEPTION_FN
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|f| f.clone_ref(py));
        let Some(f) = f else { return };
        let d = PyDict::new(py);
        let names = [
            "device_id",
            "stream_id",
            "task_id",
            "thread_id",
            "error_code",
        ];
        for (k, v) in names.into_iter().zip(facts) {
            if d.set_item(k, v).is_err() {
                return;
            }
        }
        if let Err(e) = f.call1(py, (d,)) {
            e.write_unraisable(py, Some(f.bind(py)));
        }
    });
}

/// set_exception_info_callback(fn) -> ret: aclrtSetExceptionInfoCallback.
///
/// `fn(info)` is called on the runtime's thread that reports a failed task,
/// with a `dict` of `device_id`, `stream_id`, `task_id`, `thread_id` and
/// `error_code`; `None` removes the callback. A non-callable is
/// `TypeError("parameter must be callable")`.
#[pyfunction(signature = (*args, **kwargs))]
pub fn set_exception_info_callback(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<i32> {
    const NAME: &str = "acl.rt.set_exception_info_callback";
    no_keywords(kwargs, NAME)?;
    crate::fork::check()?;
    if args.len() != 1 {
        return Err(crate::args::parse_error(NAME));
    }
    let f = args.get_item(0)?;
    let new = if f.is_none() {
        None
    } else if f.is_callable() {
        Some(f.unbind())
    } else {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "parameter must be callable",
        ));
    };
    let on = new.is_some();
    let ret = ffi::set_exception_info_callback(on.then_some(deliver_exception as fn(_)));
    if ret == 0 {
        let old = std::mem::replace(
            &mut *EXCEPTION_FN.lock().unwrap_or_else(|e| e.into_inner()),
            new,
        );
        drop(old); // the GIL is held (`py`)
    }
    let _ = py;
    Ok(ret)
}
