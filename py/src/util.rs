//! `acl.util`: memory and thread helpers with no C counterpart
//! (pyacl-facts.md §2.8).
#![deny(unsafe_code)]

use crate::args::{parse, parse_error};
use crate::ffi;
use pyo3::exceptions::{
    PyOverflowError, PyRuntimeError, PySystemExit, PyTypeError, PyValueError, PyWarning,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};
use std::thread::{JoinHandle, ThreadId};

fn one<'py>(args: &Bound<'py, PyTuple>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    if args.len() != 1 {
        return Err(parse_error(name));
    }
    args.get_item(0)
}

/// bytes_to_ptr(data: bytes) -> ptr: the address of the bytes object's own
/// buffer (no copy). The object must outlive every use of the address.
#[pyfunction(signature = (*args, **kwargs))]
pub fn bytes_to_ptr(
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<u64> {
    crate::args::no_keywords(kwargs, "acl.util.bytes_to_ptr")?;
    let data = one(args, "acl.util.bytes_to_ptr")?;
    let b = data
        .cast::<PyBytes>()
        .map_err(|_| PyValueError::new_err("acl.util.bytes_to_ptr: the argument must be bytes"))?;
    Ok(b.as_bytes().as_ptr() as usize as u64)
}

/// ptr_to_bytes(ptr, size) -> bytes: a copy of `size` bytes at `ptr`.
/// A negative size is a `ValueError`; a size the interpreter cannot allocate
/// raises `MemoryError` (or `OverflowError`), before anything is read.
#[pyfunction(signature = (*args, **kwargs))]
pub fn ptr_to_bytes<'py>(
    py: Python<'py>,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyBytes>> {
    crate::args::no_keywords(kwargs, "acl.util.ptr_to_bytes")?;
    const NAME: &str = "acl.util.ptr_to_bytes";
    if args.len() != 2 {
        return Err(parse_error(NAME));
    }
    let (ptr,): (u64,) = parse(&PyTuple::new(py, [args.get_item(0)?])?, NAME)?;
    let size: i128 = args.get_item(1)?.extract().map_err(|_| parse_error(NAME))?;
    if size < 0 {
        return Err(PyValueError::new_err(format!(
            "{NAME}: the size must be non-negative, not {size}"
        )));
    }
    let size = isize::try_from(size)
        .ok()
        .and_then(|s| usize::try_from(s).ok())
        .ok_or_else(|| {
            PyOverflowError::new_err(format!(
                "{NAME}: a size of {size} bytes cannot be allocated"
            ))
        })?;
    if size == 0 {
        return Ok(PyBytes::new(py, &[]));
    }
    if ptr == 0 {
        return Err(PyValueError::new_err(format!(
            "{NAME}: the pointer is 0 (NULL)"
        )));
    }
    // The interpreter allocates first (MemoryError for an impossible size).
    PyBytes::new_with(py, size, |buf| {
        ffi::read_into(ptr, buf);
        Ok(())
    })
}

fn warn(py: Python<'_>, msg: &std::ffi::CStr) -> PyResult<()> {
    PyErr::warn(py, &py.get_type::<PyWarning>(), msg, 1)
}

fn ndarray<'py>(
    py: Python<'py>,
    arr: &Bound<'py, PyAny>,
    name: &str,
) -> PyResult<Bound<'py, PyModule>> {
    let np = py.import("numpy")?;
    if !arr.is_instance(&np.getattr("ndarray")?)? {
        return Err(PyValueError::new_err(format!(
            "{name}: the argument must be a numpy.ndarray"
        )));
    }
    Ok(np)
}

fn data_ptr(arr: &Bound<'_, PyAny>) -> PyResult<u64> {
    arr.getattr("__array_interface__")?
        .get_item("data")?
        .get_item(0)?
        .extract()
}

/// numpy_to_ptr(arr) -> ptr: the array's data address (no copy). Warns that
/// it will be deprecated, and again when the array is not C-contiguous.
#[pyfunction(signature = (*args, **kwargs))]
pub fn numpy_to_ptr(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<u64> {
    crate::args::no_keywords(kwargs, "acl.util.numpy_to_ptr")?;
    let arr = one(args, "acl.util.numpy_to_ptr")?;
    ndarray(py, &arr, "acl.util.numpy_to_ptr")?;
    warn(
        py,
        c"acl.util.numpy_to_ptr will be deprecated; use acl.util.bytes_to_ptr",
    )?;
    if !arr.getattr("flags")?.getattr("c_contiguous")?.is_truthy()? {
        warn(
            py,
            c"acl.util.numpy_to_ptr: the array is not C-contiguous; use numpy_contiguous_to_ptr",
        )?;
    }
    data_ptr(&arr)
}

/// numpy_contiguous_to_ptr(arr) -> (ptr, contiguous_arr): a C-contiguous
/// array (`arr` itself when it already is) and its address; keep it alive.
#[pyfunction(signature = (*args, **kwargs))]
pub fn numpy_contiguous_to_ptr<'py>(
    py: Python<'py>,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<(u64, Bound<'py, PyAny>)> {
    crate::args::no_keywords(kwargs, "acl.util.numpy_contiguous_to_ptr")?;
    let arr = one(args, "acl.util.numpy_contiguous_to_ptr")?;
    let np = ndarray(py, &arr, "acl.util.numpy_contiguous_to_ptr")?;
    warn(
        py,
        c"acl.util.numpy_contiguous_to_ptr will be deprecated; use acl.util.bytes_to_ptr",
    )?;
    let c = np.call_method1("ascontiguousarray", (arr,))?;
    Ok((data_ptr(&c)?, c))
}

/// The numpy type character of an NPY type code (pyacl-facts.md §2.8).
fn dtype(code: i32) -> Option<&'static str> {
    Some(match code {
        0 => "?",
        1 => "b",
        2 => "B",
        3 => "h",
        4 => "H",
        5 => "i",
        6 => "I",
        7 => "l",
        8 => "L",
        9 => "q",
        10 => "Q",
        11 => "f",
        12 => "d",
        23 => "e",
        _ => return None,
    })
}

/// ptr_to_numpy(ptr, shape: tuple, npy_type: int) -> ndarray: a writable
/// view of the memory at `ptr`, no copy; nothing keeps the memory alive.
#[pyfunction(signature = (*args, **kwargs))]
pub fn ptr_to_numpy<'py>(
    py: Python<'py>,
    args: &Bound<'py, PyTuple>,
    kwargs: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    crate::args::no_keywords(kwargs, "acl.util.ptr_to_numpy")?;
    const NAME: &str = "acl.util.ptr_to_numpy";
    if args.len() != 3 {
        return Err(parse_error(NAME));
    }
    let (ptr,): (u64,) = parse(&PyTuple::new(py, [args.get_item(0)?])?, NAME)?;
    let shape = args.get_item(1)?;
    let shape = shape.cast::<PyTuple>().map_err(|_| parse_error(NAME))?;
    let (code,): (i32,) = parse(&PyTuple::new(py, [args.get_item(2)?])?, NAME)?;
    let dims: Vec<usize> = shape.extract().map_err(|_| parse_error(NAME))?;
    let name = dtype(code)
        .ok_or_else(|| PyValueError::new_err(format!("{NAME}: unknown npy_type {code}")))?;
    let np = py.import("numpy")?;
    warn(
        py,
        c"acl.util.ptr_to_numpy will be deprecated; use acl.util.ptr_to_bytes",
    )?;
    let dt = np.call_method1("dtype", (name,))?;
    let item: usize = dt.getattr("itemsize")?.extract()?;
    let nbytes = dims
        .iter()
        .try_fold(item, |acc, &d| acc.checked_mul(d))
        .and_then(|n| isize::try_from(n).ok())
        .ok_or_else(|| PyValueError::new_err(format!("{NAME}: the shape is too large")))?;
    if nbytes == 0 {
        return np.call_method1("empty", (shape.clone(), dt));
    }
    if ptr == 0 {
        return Err(PyValueError::new_err(format!(
            "{NAME}: the pointer is 0 (NULL)"
        )));
    }
    let view = ffi::memoryview(py, ptr, nbytes)?;
    np.call_method1("frombuffer", (view, dt))?
        .call_method1("reshape", (shape.clone(),))
}

type Outcome = Result<(), String>;

/// Threads started by `start_thread` and not yet stopped, by pthread id.
static THREADS: Mutex<BTreeMap<u64, (ThreadId, JoinHandle<Outcome>)>> = Mutex::new(BTreeMap::new());

fn threads() -> std::sync::MutexGuard<'static, BTreeMap<u64, (ThreadId, JoinHandle<Outcome>)>> {
    THREADS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// start_thread(thr_func, args) -> (thread_id, ret): runs `thr_func(args)`
/// (`thr_func()` when `args` is None) on a new thread holding the GIL while
/// it runs Python. `thread_id` is the thread's pthread id, which is
/// `threading.get_ident()` inside it and what `subscribe_report` takes.
#[pyfunction(signature = (*args, **kwargs))]
pub fn start_thread(
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<(u64, i32)> {
    crate::args::no_keywords(kwargs, "acl.util.start_thread")?;
    if args.len() != 2 {
        return Err(parse_error("acl.util.start_thread"));
    }
    let func = args.get_item(0)?;
    if !func.is_callable() {
        return Err(PyTypeError::new_err("parameter must be callable"));
    }
    let func = func.unbind();
    let arg = args.get_item(1)?;
    let arg = (!arg.is_none()).then(|| arg.unbind());
    // The thread starts its function only once its id is registered, so it
    // may pass its own id to stop_thread (which answers EDEADLK then).
    let (registered, wait_registered) = std::sync::mpsc::channel::<()>();
    let spawned = std::thread::Builder::new()
        .name("acl.util thread".into())
        .spawn(move || {
            let _ = wait_registered.recv();
            let mut objs = Some((func, arg));
            let outcome = crate::gil::attach_unless_exiting(|py| {
                let Some((func, arg)) = objs.take() else {
                    return Ok(());
                };
                let r = match arg {
                    None => func.call0(py),
                    Some(a) => func.call1(py, (a,)),
                };
                // As in a threading.Thread: the exception (SystemExit and
                // KeyboardInterrupt included) is printed through
                // sys.unraisablehook, never an exit of the process from this
                // thread; SystemExit ends the thread as a return does.
                r.map(drop).or_else(|e| {
                    let exit = e.is_instance_of::<PySystemExit>(py);
                    let msg = e.to_string();
                    e.write_unraisable(py, Some(func.bind(py)));
                    if exit { Ok(()) } else { Err(msg) }
                })
            });
            outcome.unwrap_or_else(|| {
                // The interpreter is shutting down: nothing ran; leak, never drop
                // Python objects without it.
                std::mem::forget(objs.take());
                Err("the Python interpreter was shutting down".to_owned())
            })
        });
    let handle = match spawned {
        Ok(h) => h,
        // pthread_create's EAGAIN.
        Err(_) => return Ok((0, 11)),
    };
    let id = pthread_id(&handle);
    let tid = handle.thread().id();
    threads().insert(id, (tid, handle));
    let _ = registered.send(());
    Ok((id, 0))
}

#[cfg(unix)]
fn pthread_id<T>(h: &JoinHandle<T>) -> u64 {
    use std::os::unix::thread::JoinHandleExt;
    // `pthread_t` is `c_ulong`: 64 bits on the 64-bit targets, 32 elsewhere.
    #[allow(clippy::unnecessary_cast)]
    let id = h.as_pthread_t() as u64;
    id
}

#[cfg(not(unix))]
fn pthread_id<T>(_h: &JoinHandle<T>) -> u64 {
    compile_error!("acl.util.start_thread needs pthreads (Linux)");
}

/// stop_thread(thread_id) -> ret: waits for a thread of `start_thread`
/// (GIL released). Raises RuntimeError if its function raised. `ret` is 3
/// (ESRCH) for an unknown id and 35 (EDEADLK) when a thread stops itself.
#[pyfunction(signature = (*args, **kwargs))]
pub fn stop_thread(
    py: Python<'_>,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<i32> {
    crate::args::no_keywords(kwargs, "acl.util.stop_thread")?;
    let (id,): (u64,) = parse(args, "acl.util.stop_thread")?;
    let (tid, handle) = {
        let mut map = threads();
        match map.remove(&id) {
            None => return Ok(3),
            Some((tid, h)) if tid == std::thread::current().id() => {
                map.insert(id, (tid, h));
                return Ok(35);
            }
            Some(entry) => entry,
        }
    };
    let _ = tid;
    match crate::gil::blocking(py, move || handle.join()) {
        Ok(Ok(())) => Ok(0),
        Ok(Err(msg)) => Err(PyRuntimeError::new_err(format!(
            "acl.util.stop_thread: the thread function raised: {msg}"
        ))),
        Err(_) => Err(PyRuntimeError::new_err(
            "acl.util.stop_thread: the thread panicked",
        )),
    }
}
