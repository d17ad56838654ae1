//! `acl.app_log(log_level, message)`: pyACL's face of `aclAppLog`. The
//! record carries the Python caller's function, file and line (the frame
//! that called `app_log`), as `ACL_APP_LOG` carries the C caller's.
#![deny(unsafe_code)]

use std::ffi::CString;

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use crate::args::parse_error;
use crate::ffi;

/// A C string of `s` without its interior NULs (the runtime's strings end
/// at the first one).
fn c_text(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

/// The calling Python frame's function, file and line; `("", "", 0)` when
/// called from outside any Python frame.
fn caller(py: Python<'_>) -> (String, String, u32) {
    let frame = py
        .import("sys")
        .and_then(|sys| sys.getattr("_getframe"))
        .and_then(|f| f.call1((0,)));
    let Ok(frame) = frame else {
        return (String::new(), String::new(), 0);
    };
    let code = frame.getattr("f_code").ok();
    let name = code
        .as_ref()
        .and_then(|c| c.getattr("co_name").ok()?.extract::<String>().ok())
        .unwrap_or_default();
    let file = code
        .as_ref()
        .and_then(|c| c.getattr("co_filename").ok()?.extract::<String>().ok())
        .unwrap_or_default();
    let line = frame
        .getattr("f_lineno")
        .ok()
        .and_then(|l| l.extract::<u32>().ok())
        .unwrap_or(0);
    (name, file, line)
}

/// app_log(log_level, message) -> None: aclAppLog. Writes one application
/// log record of `log_level` (ACL_DEBUG 0, ACL_INFO 1, ACL_WARNING 2,
/// ACL_ERROR 3) with the caller's function, file and line, when the level is
/// at least the process's (`ASCEND_GLOBAL_LOG_LEVEL`, default 3); the
/// message is text, never a format.
#[pyfunction(signature = (*args))]
pub fn app_log(args: &Bound<'_, PyTuple>) -> PyResult<()> {
    let name = "acl.app_log";
    if args.len() != 2 {
        return Err(parse_error(name));
    }
    let level = args
        .get_item(0)?
        .extract::<i32>()
        .map_err(|_| parse_error(name))?;
    let message = args
        .get_item(1)?
        .cast::<PyString>()
        .map_err(|_| parse_error(name))?
        .extract::<String>()?;
    let py = args.py();
    let (func, file, line) = caller(py);
    let (func, file, message) = (c_text(&func), c_text(&file), c_text(&message));
    // The record is written to a stream that may block: without the GIL.
    crate::gil::blocking(py, || ffi::app_log(level, &func, &file, line, &message));
    Ok(())
}
