//! `acl` and `acl.rt`: one Python function per row of pyacl-facts.md §2.1–2.7.
//!
//! Every function parses its positional arguments with pyACL's formats
//! ([`crate::args`]), makes one call of the basement ([`crate::ffi`]) and
//! returns `ret` alone or the outputs followed by `ret`. The GIL is released
//! around every call that may wait for device work (the synchronize family,
//! `stream_wait_event`, `process_report`, as pyACL does, and also the
//! releases that wait for a stream's tasks: destroying streams and contexts,
//! resetting devices, finalizing) and every call that queues work
//! (`memcpy_async`, `memset_async`, `memcpy2d_async`, `record_event`,
//! `reset_event`, `launch_callback`: on the hardware a full stream queue
//! makes them wait, possibly for a callback of that stream that needs the
//! GIL), so a callback that needs the GIL can run while another thread
//! waits.
#![deny(unsafe_code)]

use crate::args::{no_keywords, parse, parse_error};
use crate::ffi;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
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

// ---- acl -----------------------------------------------------------------

/// init(config_path=None) -> ret: aclInit. The path is optional.
#[pyfunction(signature = (*args, **kwargs))]
pub fn init(args: &Bound<'_, PyTuple>, kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<i32> {
    no_keywords(kwargs, "acl.init")?;
    crate::fork::check()?;
    let path = match args.len() {
        0 => None,
        1 => {
            let a = args.get_item(0)?;
            if a.is_none() {
                None
            } else {
                let s = a
                    .cast::<PyString>()
                    .map_err(|_| parse_error("acl.init"))?
                    .extract::<String>()?;
                Some(CString::new(s).map_err(|_| parse_error("acl.init"))?)
            }
        }
        _ => return Err(parse_error("acl.init")),
    };
    Ok(ffi::init(path.as_deref()))
}
pyfn!(finalize, "acl.finalize", "finalize() -> ret: aclFinalize (GIL released).",
    () -> i32, |py| crate::gil::blocking(py, ffi::finalize));
pyfn!(finalize_reference, "acl.finalize_reference",
    "finalize_reference() -> (ref_count, ret): aclFinalizeReference (GIL released).",
    () -> (u64, i32), |py| crate::gil::blocking(py, ffi::finalize_reference));
pyfn!(get_recent_err_msg, "acl.get_recent_err_msg",
    "get_recent_err_msg() -> str | None: aclGetRecentErrMsg.",
    () -> Option<String>, |py| ffi::recent_err_msg());
pyfn!(get_soc_name, "acl.get_soc_name", "get_soc_name() -> str | None: aclrtGetSocName.",
    () -> Option<String>, |py| ffi::soc_name());
pyfn!(get_version, "acl.get_version",
    "get_version() -> (major, minor, patch, ret): aclrtGetVersion.",
    () -> (i32, i32, i32, i32), |py| ffi::version());

// ---- device --------------------------------------------------------------

pyfn!(set_device, "acl.rt.set_device", "set_device(device_id) -> ret: aclrtSetDevice.",
    (d: i32) -> i32, |py| ffi::set_device(d));
pyfn!(reset_device, "acl.rt.reset_device",
    "reset_device(device_id) -> ret: aclrtResetDevice (GIL released).",
    (d: i32) -> i32, |py| crate::gil::blocking(py, move || ffi::reset_device(d)));
pyfn!(reset_device_force, "acl.rt.reset_device_force",
    "reset_device_force(device_id) -> ret: aclrtResetDeviceForce (GIL released).",
    (d: i32) -> i32, |py| crate::gil::blocking(py, move || ffi::reset_device_force(d)));
pyfn!(get_device, "acl.rt.get_device", "get_device() -> (device_id, ret): aclrtGetDevice.",
    () -> (i32, i32), |py| ffi::get_device());
pyfn!(get_device_count, "acl.rt.get_device_count",
    "get_device_count() -> (count, ret): aclrtGetDeviceCount.",
    () -> (u32, i32), |py| ffi::get_device_count());
pyfn!(get_run_mode, "acl.rt.get_run_mode",
    "get_run_mode() -> (run_mode, ret): aclrtGetRunMode (ACL_DEVICE = 0, ACL_HOST = 1).",
    () -> (u32, i32), |py| ffi::get_run_mode());
pyfn!(synchronize_device, "acl.rt.synchronize_device",
"synchronize_device() -> ret: aclrtSynchronizeDevice (GIL released).",
() -> i32, |py| {
    crate::gil::blocking(py, ffi::synchronize_device)
});
pyfn!(synchronize_device_with_timeout, "acl.rt.synchronize_device_with_timeout",
    "synchronize_device_with_timeout(timeout) -> ret: aclrtSynchronizeDeviceWithTimeout (GIL released).",
    (t: i32) -> i32, |py| crate::gil::blocking(py, move || ffi::synchronize_device_with_timeout(t)));

// ---- context -------------------------------------------------------------

pyfn!(create_context, "acl.rt.create_context",
    "create_context(device_id) -> (context, ret): aclrtCreateContext.",
    (d: i32) -> (u64, i32), |py| ffi::create_context(d));
pyfn!(destroy_context, "acl.rt.destroy_context",
    "destroy_context(context) -> ret: aclrtDestroyContext (GIL released).",
    (c: u64) -> i32, |py| crate::gil::blocking(py, move || ffi::destroy_context(c)));
pyfn!(set_context, "acl.rt.set_context", "set_context(context) -> ret: aclrtSetCurrentContext.",
    (c: u64) -> i32, |py| ffi::set_context(c));
pyfn!(get_context, "acl.rt.get_context",
    "get_context() -> (context, ret): aclrtGetCurrentContext.",
    () -> (u64, i32), |py| ffi::get_context());
pyfn!(ctx_get_current_default_stream, "acl.rt.ctx_get_current_default_stream",
    "ctx_get_current_default_stream() -> (stream, ret): aclrtCtxGetCurrentDefaultStream.",
    () -> (u64, i32), |py| ffi::ctx_get_current_default_stream());

// ---- stream --------------------------------------------------------------

pyfn!(create_stream, "acl.rt.create_stream", "create_stream() -> (stream, ret): aclrtCreateStream.",
    () -> (u64, i32), |py| ffi::create_stream());
pyfn!(create_stream_with_config, "acl.rt.create_stream_with_config",
    "create_stream_with_config(priority, flag) -> (stream, ret): aclrtCreateStreamWithConfig.",
    (priority: u32, flag: u32) -> (u64, i32), |py| ffi::create_stream_with_config(priority, flag));
pyfn!(destroy_stream, "acl.rt.destroy_stream",
"destroy_stream(stream) -> ret: aclrtDestroyStream (GIL released: it waits for the stream).",
(s: u64) -> i32, |py| {
    crate::callback::refuse_wait_served("acl.rt.destroy_stream", s)?;
    let ret = crate::gil::blocking(py, move || ffi::destroy_stream(s));
    if ret == 0 {
        crate::callback::unsubscribed(s);
    }
    ret
});
pyfn!(destroy_stream_force, "acl.rt.destroy_stream_force",
"destroy_stream_force(stream) -> ret: aclrtDestroyStreamForce (GIL released).",
(s: u64) -> i32, |py| {
    let ret = crate::gil::blocking(py, move || ffi::destroy_stream_force(s));
    if ret == 0 {
        crate::callback::unsubscribed(s);
    }
    ret
});
pyfn!(synchronize_stream, "acl.rt.synchronize_stream",
"synchronize_stream(stream) -> ret: aclrtSynchronizeStream (GIL released; 0 = default stream).",
(s: u64) -> i32, |py| {
    crate::callback::refuse_wait_served("acl.rt.synchronize_stream", s)?;
    crate::gil::blocking(py, move || ffi::synchronize_stream(s))
});
pyfn!(synchronize_stream_with_timeout, "acl.rt.synchronize_stream_with_timeout",
    "synchronize_stream_with_timeout(stream, timeout) -> ret: aclrtSynchronizeStreamWithTimeout (GIL released).",
    (s: u64, t: i32) -> i32, |py| crate::gil::blocking(py, move || ffi::synchronize_stream_with_timeout(s, t)));
pyfn!(stream_query, "acl.rt.stream_query", "stream_query(stream) -> (status, ret): aclrtStreamQuery.",
    (s: u64) -> (u32, i32), |py| ffi::stream_query(s));
pyfn!(set_stream_failure_mode, "acl.rt.set_stream_failure_mode",
    "set_stream_failure_mode(stream, mode) -> ret: aclrtSetStreamFailureMode.",
    (s: u64, mode: u64) -> i32, |py| ffi::set_stream_failure_mode(s, mode));
pyfn!(get_stream_available_num, "acl.rt.get_stream_available_num",
    "get_stream_available_num() -> (count, ret): aclrtGetStreamAvailableNum.",
    () -> (u32, i32), |py| ffi::get_stream_available_num());

// ---- events --------------------------------------------------------------

pyfn!(create_event, "acl.rt.create_event", "create_event() -> (event, ret): aclrtCreateEvent.",
    () -> (u64, i32), |py| ffi::create_event());
pyfn!(create_event_with_flag, "acl.rt.create_event_with_flag",
    "create_event_with_flag(flag) -> (event, ret): aclrtCreateEventWithFlag.",
    (f: u32) -> (u64, i32), |py| ffi::create_event_with_flag(f));
pyfn!(create_event_ex_with_flag, "acl.rt.create_event_ex_with_flag",
    "create_event_ex_with_flag(flag) -> (event, ret): aclrtCreateEventExWithFlag.",
    (f: u32) -> (u64, i32), |py| ffi::create_event_ex_with_flag(f));
pyfn!(destroy_event, "acl.rt.destroy_event", "destroy_event(event) -> ret: aclrtDestroyEvent.",
(e: u64) -> i32, |py| {
    let ret = ffi::destroy_event(e);
    if ret == 0 {
        crate::callback::forget_event(e);
    }
    ret
});
pyfn!(record_event, "acl.rt.record_event", "record_event(event, stream) -> ret: aclrtRecordEvent.",
(e: u64, s: u64) -> i32, |py| {
    let ret = crate::gil::blocking(py, move || ffi::record_event(e, s));
    if ret == 0 {
        crate::callback::recorded(e, s);
    }
    ret
});
pyfn!(reset_event, "acl.rt.reset_event", "reset_event(event, stream) -> ret: aclrtResetEvent.",
    (e: u64, s: u64) -> i32, |py| crate::gil::blocking(py, move || ffi::reset_event(e, s)));
pyfn!(query_event, "acl.rt.query_event",
    "query_event(event) -> (status, ret): aclrtQueryEvent (deprecated by the runtime).",
    (e: u64) -> (u32, i32), |py| ffi::query_event(e));
pyfn!(query_event_status, "acl.rt.query_event_status",
    "query_event_status(event) -> (status, ret): aclrtQueryEventStatus.",
    (e: u64) -> (u32, i32), |py| ffi::query_event_status(e));
pyfn!(query_event_wait_status, "acl.rt.query_event_wait_status",
    "query_event_wait_status(event) -> (status, ret): aclrtQueryEventWaitStatus.",
    (e: u64) -> (u32, i32), |py| ffi::query_event_wait_status(e));
pyfn!(synchronize_event, "acl.rt.synchronize_event",
"synchronize_event(event) -> ret: aclrtSynchronizeEvent (GIL released).",
(e: u64) -> i32, |py| {
    if let Some(s) = crate::callback::stream_of_event(e)
        && ffi::query_event_status(e) != (1, 0) // not complete yet
    {
        crate::callback::refuse_wait_served("acl.rt.synchronize_event", s)?;
    }
    crate::gil::blocking(py, move || ffi::synchronize_event(e))
});
pyfn!(synchronize_event_with_timeout, "acl.rt.synchronize_event_with_timeout",
    "synchronize_event_with_timeout(event, timeout) -> ret: aclrtSynchronizeEventWithTimeout (GIL released).",
    (e: u64, t: i32) -> i32, |py| crate::gil::blocking(py, move || ffi::synchronize_event_with_timeout(e, t)));
pyfn!(event_elapsed_time, "acl.rt.event_elapsed_time",
"event_elapsed_time(start, end) -> (ms: float, ret): aclrtEventElapsedTime.",
(a: u64, b: u64) -> (f64, i32), |py| {
    let (ms, ret) = ffi::event_elapsed_time(a, b);
    (f64::from(ms), ret)
});
pyfn!(stream_wait_event, "acl.rt.stream_wait_event",
    "stream_wait_event(stream, event) -> ret: aclrtStreamWaitEvent (GIL released).",
    (s: u64, e: u64) -> i32, |py| crate::gil::blocking(py, move || ffi::stream_wait_event(s, e)));
pyfn!(set_op_wait_timeout, "acl.rt.set_op_wait_timeout",
    "set_op_wait_timeout(timeout_s) -> ret: aclrtSetOpWaitTimeout.",
    (t: u32) -> i32, |py| ffi::set_op_wait_timeout(t));
pyfn!(event_get_timestamp, "acl.rt.event_get_timestamp",
    "event_get_timestamp(event) -> (timestamp, ret): aclrtEventGetTimestamp.",
    (e: u64) -> (u64, i32), |py| ffi::event_get_timestamp(e));
pyfn!(get_event_avail_num, "acl.rt.get_event_avail_num",
    "get_event_avail_num() -> (count, ret): aclrtGetEventAvailNum.",
    () -> (u32, i32), |py| ffi::get_event_avail_num());

// ---- memory --------------------------------------------------------------

pyfn!(malloc, "acl.rt.malloc", "malloc(size, policy) -> (dev_ptr, ret): aclrtMalloc.",
    (size: u64, policy: u32) -> (u64, i32), |py| ffi::malloc(size, policy));
pyfn!(malloc_cached, "acl.rt.malloc_cached",
    "malloc_cached(size, policy) -> (dev_ptr, ret): aclrtMallocCached.",
    (size: u64, policy: u32) -> (u64, i32), |py| ffi::malloc_cached(size, policy));
pyfn!(malloc_align32, "acl.rt.malloc_align32",
    "malloc_align32(size, policy) -> (dev_ptr, ret): aclrtMallocAlign32.",
    (size: u64, policy: u32) -> (u64, i32), |py| ffi::malloc_align32(size, policy));
pyfn!(free, "acl.rt.free", "free(dev_ptr) -> ret: aclrtFree.",
    (ptr: u64) -> i32, |py| ffi::free(ptr));
pyfn!(malloc_host, "acl.rt.malloc_host",
    "malloc_host(size) -> (host_ptr, ret): aclrtMallocHost (device memory in ACL_DEVICE run mode).",
    (size: u64) -> (u64, i32), |py| ffi::malloc_host(size));
pyfn!(free_host, "acl.rt.free_host", "free_host(host_ptr) -> ret: aclrtFreeHost.",
    (ptr: u64) -> i32, |py| ffi::free_host(ptr));
pyfn!(memset, "acl.rt.memset", "memset(dev_ptr, max_count, value, count) -> ret: aclrtMemset.",
    (ptr: u64, max: u64, value: i32, count: u64) -> i32, |py| ffi::memset(ptr, max, value, count));
pyfn!(memset_async, "acl.rt.memset_async",
    "memset_async(dev_ptr, max_count, value, count, stream) -> ret: aclrtMemsetAsync.",
    (ptr: u64, max: u64, value: i32, count: u64, s: u64) -> i32,
    |py| crate::gil::blocking(py, move || ffi::memset_async(ptr, max, value, count, s)));
pyfn!(memcpy, "acl.rt.memcpy", "memcpy(dst, dest_max, src, count, kind) -> ret: aclrtMemcpy.",
    (dst: u64, max: u64, src: u64, count: u64, kind: u32) -> i32,
    |py| ffi::memcpy(dst, max, src, count, kind));
pyfn!(memcpy_async, "acl.rt.memcpy_async",
    "memcpy_async(dst, dest_max, src, count, kind, stream) -> ret: aclrtMemcpyAsync.",
    (dst: u64, max: u64, src: u64, count: u64, kind: u32, s: u64) -> i32,
    |py| crate::gil::blocking(py, move || ffi::memcpy_async(dst, max, src, count, kind, s)));
pyfn!(get_mem_info, "acl.rt.get_mem_info",
    "get_mem_info(attr) -> (free, total, ret): aclrtGetMemInfo.",
    (attr: u32) -> (u64, u64, i32), |py| ffi::get_mem_info(attr));
pyfn!(memcpy2d, "acl.rt.memcpy2d",
    "memcpy2d(dst, dpitch, src, spitch, width, height, kind) -> ret: aclrtMemcpy2d.",
    (dst: u64, dpitch: u64, src: u64, spitch: u64, w: u64, h: u64, kind: u32) -> i32,
    |py| ffi::memcpy2d(dst, dpitch, src, spitch, w, h, kind));
pyfn!(memcpy2d_async, "acl.rt.memcpy2d_async",
    "memcpy2d_async(dst, dpitch, src, spitch, width, height, kind, stream) -> ret: aclrtMemcpy2dAsync.",
    (dst: u64, dpitch: u64, src: u64, spitch: u64, w: u64, h: u64, kind: u32, s: u64) -> i32,
    |py| crate::gil::blocking(py, move || ffi::memcpy2d_async(dst, dpitch, src, spitch, w, h, kind, s)));

// ---- peer access and last error -----------------------------------------

pyfn!(device_can_access_peer, "acl.rt.device_can_access_peer",
    "device_can_access_peer(device_id, peer_device_id) -> (can_access_peer, ret): aclrtDeviceCanAccessPeer (1 or 0).",
    (d: i32, peer: i32) -> (i32, i32), |py| ffi::device_can_access_peer(d, peer));
pyfn!(device_enable_peer_access, "acl.rt.device_enable_peer_access",
    "device_enable_peer_access(peer_device_id, flags) -> ret: aclrtDeviceEnablePeerAccess (from the current device; flags must be 0).",
    (peer: i32, flags: u32) -> i32, |py| ffi::device_enable_peer_access(peer, flags));
pyfn!(device_disable_peer_access, "acl.rt.device_disable_peer_access",
    "device_disable_peer_access(peer_device_id) -> ret: aclrtDeviceDisablePeerAccess.",
    (peer: i32) -> i32, |py| ffi::device_disable_peer_access(peer));
pyfn!(get_last_error, "acl.rt.get_last_error",
    "get_last_error(level) -> ret: aclrtGetLastError: the calling thread's last error code, then cleared (level 0 = ACL_RT_THREAD_LEVEL).",
    (level: u32) -> i32, |py| ffi::get_last_error(level));
pyfn!(peek_at_last_error, "acl.rt.peek_at_last_error",
    "peek_at_last_error(level) -> ret: aclrtPeekAtLastError: the calling thread's last error code, kept (level 0 = ACL_RT_THREAD_LEVEL).",
    (level: u32) -> i32, |py| ffi::peek_at_last_error(level));

// ---- callbacks -----------------------------------------------------------

pyfn!(subscribe_report, "acl.rt.subscribe_report",
"subscribe_report(thread_id, stream) -> ret: aclrtSubscribeReport. thread_id: threading.Thread.ident or an acl.util.start_thread id.",
(thread: u64, s: u64) -> i32, |py| {
    let ret = ffi::subscribe_report(thread, s);
    if ret == 0 {
        crate::callback::subscribed(thread, s);
    }
    ret
});
pyfn!(unsubscribe_report, "acl.rt.unsubscribe_report",
"unsubscribe_report(thread_id, stream) -> ret: aclrtUnSubscribeReport (GIL released).",
(thread: u64, s: u64) -> i32, |py| {
    let ret = crate::gil::blocking(py, move || ffi::unsubscribe_report(thread, s));
    if ret == 0 {
        crate::callback::unsubscribed(s);
    }
    ret
});
pyfn!(process_report, "acl.rt.process_report",
    "process_report(timeout_ms) -> ret: aclrtProcessReport (GIL released; callbacks run here with the GIL re-acquired).",
    (t: i32) -> i32, |py| crate::gil::blocking(py, move || ffi::process_report(t)));

/// launch_callback(fn, user_data, block_type, stream) -> ret: aclrtLaunchCallback.
/// `fn(user_data)` runs on the thread subscribed to the stream, holding the
/// GIL; an exception it raises is printed and swallowed.
#[pyfunction(signature = (*args, **kwargs))]
pub fn launch_callback(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<i32> {
    const NAME: &str = "acl.rt.launch_callback";
    no_keywords(kwargs, NAME)?;
    crate::fork::check()?;
    if args.len() != 4 {
        return Err(parse_error(NAME));
    }
    let func = args.get_item(0)?;
    let data = args.get_item(1)?;
    let (block, s): (u32, u64) = parse(
        &PyTuple::new(py, [args.get_item(2)?, args.get_item(3)?])?,
        NAME,
    )?;
    if !func.is_callable() {
        return Err(PyTypeError::new_err("parameter must be callable"));
    }
    // Queueing may wait (a full stream queue) for a callback that needs
    // the GIL: released around the call.
    let (func, data) = (func.unbind(), data.unbind());
    Ok(crate::gil::blocking(py, move || {
        crate::callback::launch(func, data, block, s)
    }))
}
