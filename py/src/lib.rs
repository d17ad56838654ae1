//! The `acl` Python extension module: pyACL's surface over `aclrt-sys`.
//!
//! `import acl` gives the module; `acl.rt` and `acl.util` are submodules
//! registered in `sys.modules` under `acl.rt` / `acl.util`, so both
//! `acl.rt.malloc(...)` and `import acl.rt` work, as with Huawei's module.
//! The conventions (pyacl-facts.md §1) are the contract: outputs first and
//! `ret` last, plain `int`s for addresses and handles, `0` for NULL and the
//! default stream, runtime failures only as a non-zero `ret`, `TypeError`
//! (`"acl.rt.<name> args parse failed"`) or `ValueError` for malformed
//! arguments, no constants.
//!
//! Layers (imports only downward): [`ffi`] (unsafe: one C call per
//! function), [`errors`], [`fork`], [`protocol`] (the pyo3-free cores of
//! the handles' and memory's counting, model-checked in `models/`) ←
//! [`handle`] (runtime handles with counted uses) ← [`memory`] (unsafe: the buffer protocol of runtime
//! memory and the Pythonic layer's copy) ← [`args`] (pyACL's argument
//! formats), [`gil`] (leaving and re-entering the interpreter, safe at
//! exit) ← [`callback`] ← [`rt`], [`rt_ext`] (over [`ffi_ext`], the newer resources' basement), [`log`],
//! [`serve`] (a stream's callbacks served by the program's thread), [`util`] (the Python functions) ← this file (the module).
//!
//! Backend: the `sim` feature (default) runs on the built-in simulator,
//! `system` calls the real `libascendcl` (see py/README.md).

pub mod args;
pub mod book;
pub mod callback;
pub mod errors;
pub mod ffi;
pub mod ffi_ext;
pub mod fork;
pub mod gil;
pub mod handle;
pub mod log;
pub mod memory;
pub mod protocol;
pub mod rt;
pub mod rt_ext;
pub mod serve;
pub mod util;
pub mod waiter;

use pyo3::prelude::*;
use pyo3::wrap_pyfunction;

fn submodule<'py>(parent: &Bound<'py, PyModule>, name: &str) -> PyResult<Bound<'py, PyModule>> {
    let py = parent.py();
    let full = format!("acl.{name}");
    let m = PyModule::new(py, name)?;
    m.setattr("__name__", &full)?;
    parent.setattr(name, &m)?;
    py.import("sys")?.getattr("modules")?.set_item(full, &m)?;
    Ok(m)
}

macro_rules! add {
    ($m:expr; $($path:ident :: $f:ident),* $(,)?) => {
        $( $m.add_function(wrap_pyfunction!($path::$f, $m)?)?; )*
    };
}

/// `PyInit__native`: the module `acl._native`, re-exported as `acl`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add!(m; rt::init, rt::finalize, rt::finalize_reference, rt::get_recent_err_msg,
        rt::get_soc_name, rt::get_version);
    add!(m; log::app_log);

    let r = submodule(m, "rt")?;
    add!(&r;
        // device
        rt::set_device, rt::reset_device, rt::reset_device_force, rt::get_device,
        rt::get_device_count, rt::get_run_mode, rt::synchronize_device,
        rt::synchronize_device_with_timeout,
        // context
        rt::create_context, rt::destroy_context, rt::set_context, rt::get_context,
        rt::ctx_get_current_default_stream,
        // stream
        rt::create_stream, rt::create_stream_with_config, rt::destroy_stream,
        rt::destroy_stream_force, rt::synchronize_stream, rt::synchronize_stream_with_timeout,
        rt::stream_query, rt::set_stream_failure_mode, rt::get_stream_available_num,
        // events
        rt::create_event, rt::create_event_with_flag, rt::create_event_ex_with_flag,
        rt::destroy_event, rt::record_event, rt::reset_event, rt::query_event,
        rt::query_event_status, rt::query_event_wait_status, rt::synchronize_event,
        rt::synchronize_event_with_timeout, rt::event_elapsed_time, rt::stream_wait_event,
        rt::set_op_wait_timeout, rt::event_get_timestamp, rt::get_event_avail_num,
        // memory
        rt::malloc, rt::malloc_cached, rt::malloc_align32, rt::free, rt::malloc_host,
        rt::free_host, rt::memset, rt::memset_async, rt::memcpy, rt::memcpy_async,
        rt::get_mem_info, rt::memcpy2d, rt::memcpy2d_async,
        // callbacks
        rt::subscribe_report, rt::unsubscribe_report, rt::launch_callback, rt::process_report,
        // peer access, last error
        rt::device_can_access_peer, rt::device_enable_peer_access,
        rt::device_disable_peer_access, rt::get_last_error, rt::peek_at_last_error,
    );
    add!(&r;
        // device information and control
        rt_ext::get_device_info, rt_ext::get_device_capability, rt_ext::query_device_status,
        rt_ext::get_device_utilization_rate, rt_ext::get_device_res_limit,
        rt_ext::set_device_res_limit, rt_ext::reset_device_res_limit, rt_ext::set_device_sat_mode,
        rt_ext::get_device_sat_mode, rt_ext::device_get_bare_tgid,
        // stream attributes
        rt_ext::stream_get_id, rt_ext::stream_get_flags, rt_ext::stream_get_priority,
        // notifies
        rt_ext::create_notify, rt_ext::destroy_notify, rt_ext::record_notify,
        rt_ext::wait_and_reset_notify, rt_ext::get_notify_id, rt_ext::notify_get_export_key,
        rt_ext::notify_set_import_pid, rt_ext::notify_import_by_key,
        // IPC memory and events
        rt_ext::ipc_mem_get_export_key, rt_ext::ipc_mem_set_import_pid,
        rt_ext::ipc_mem_import_by_key, rt_ext::ipc_mem_close, rt_ext::mem_get_address_range,
        rt_ext::ipc_get_event_handle, rt_ext::ipc_open_event_handle,
        // virtual memory
        rt_ext::reserve_mem_address, rt_ext::release_mem_address, rt_ext::malloc_physical,
        rt_ext::free_physical, rt_ext::map_mem, rt_ext::unmap_mem, rt_ext::mem_set_access,
        rt_ext::mem_get_allocation_granularity,
        // value tasks
        rt_ext::value_write, rt_ext::value_wait,
        // exception reports
        rt_ext::set_exception_info_callback,
    );

    // The Pythonic layer's memory (private to it: `aclrt` re-exports).
    m.add_class::<memory::Memory>()?;
    m.add_class::<handle::Handle>()?;
    m.add_class::<handle::Use>()?;
    m.add_class::<serve::Server>()?;
    m.add_function(wrap_pyfunction!(serve::_serving, m)?)?;
    m.add_function(wrap_pyfunction!(serve::_subscriber, m)?)?;
    m.add_function(wrap_pyfunction!(memory::_copy, m)?)?;
    m.add_function(wrap_pyfunction!(memory::_copy_or_raise, m)?)?;
    m.add_function(wrap_pyfunction!(memory::_kind_of, m)?)?;
    add!(m; book::_sync_stream, book::_sync_device, book::_forget_stream, book::_forget_event,
        book::_record, book::_recorded_on, book::_sync_event, book::_query_event,
        waiter::_wait_now, waiter::_wait_async);
    m.add("AclUsageError", m.py().get_type::<errors::AclUsageError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;

    // A forked child refuses every runtime call (fork.rs).
    m.add_function(wrap_pyfunction!(fork::_after_fork_in_child, m)?)?;
    let os = m.py().import("os")?;
    if os.hasattr("register_at_fork")? {
        let kw = pyo3::types::PyDict::new(m.py());
        kw.set_item("after_in_child", m.getattr("_after_fork_in_child")?)?;
        os.call_method("register_at_fork", (), Some(&kw))?;
    }

    m.add_function(wrap_pyfunction!(gil::_at_exit, m)?)?;
    m.py().import("atexit")?.call_method1(
        "register",
        (m.getattr("_at_exit")?, Py::new(m.py(), gil::fence())?),
    )?;

    let u = submodule(m, "util")?;
    add!(&u; util::bytes_to_ptr, util::ptr_to_bytes, util::numpy_to_ptr,
        util::numpy_contiguous_to_ptr, util::ptr_to_numpy, util::start_thread, util::stop_thread);
    Ok(())
}
