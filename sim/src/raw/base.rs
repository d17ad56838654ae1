//! The exported functions of `acl/acl_base.h` beyond the runtime calls:
//! the half conversions, `aclDataTypeSize`, and the Rust half of
//! `aclAppLog` (whose C-variadic entry point is `app_log.c`, compiled by
//! the crate's build script: it formats the message with `vsnprintf` and
//! calls the two functions below).

use core::ffi::{CStr, c_char, c_int, c_long};

use crate::ffi::{aclDataType, aclFloat16};
use crate::{base_types, log};

/// `aclFloat16ToFloat`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclFloat16ToFloat(value: aclFloat16) -> f32 {
    base_types::f16_to_f32(value)
}

/// `aclFloatToFloat16`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclFloatToFloat16(value: f32) -> aclFloat16 {
    base_types::f32_to_f16(value)
}

/// `aclDataTypeSize`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclDataTypeSize(data_type: aclDataType) -> usize {
    base_types::data_type_size(data_type)
}

/// Whether `aclAppLog` writes a record of `level` (called by `app_log.c`
/// before it formats anything).
#[unsafe(no_mangle)]
pub extern "C" fn aclrtSimAppLogEnabled(level: c_int) -> c_int {
    c_int::from(log::enabled(level))
}

/// Writes one `aclAppLog` record (called by `app_log.c`): `body` is the
/// formatted message (at most 1023 bytes), `body_len` what `vsnprintf`
/// returned (the untruncated length, or negative for an invalid format),
/// `tid` the calling thread's kernel id.
///
/// # Safety
/// `func`, `file` and `body` are NUL-terminated strings valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn aclrtSimAppLogRecord(
    level: c_int,
    func: *const c_char,
    file: *const c_char,
    line: u32,
    body: *const c_char,
    body_len: c_int,
    tid: c_long,
) {
    if func.is_null() || file.is_null() || body.is_null() {
        return;
    }
    // SAFETY: the three pointers are non-null NUL-terminated strings valid
    // for this call (this function's contract; `app_log.c` passes the
    // caller's func and file, already checked non-null there, and its own
    // NUL-terminated buffer).
    let (func, file, body) = unsafe {
        (
            CStr::from_ptr(func).to_bytes(),
            CStr::from_ptr(file).to_bytes(),
            CStr::from_ptr(body).to_bytes(),
        )
    };
    if body_len < 0 {
        // The runtime's answer to a format vsnprintf rejects.
        log::write_record(3, b"aclAppLog format string is invalid");
        return;
    }
    let text = log::compose(
        tid,
        func,
        file,
        line,
        body,
        usize::try_from(body_len).unwrap_or(usize::MAX),
    );
    log::write_record(level, &text);
}

/// Keeps `app_log.c`'s object in every link of this crate (a C library's
/// member is linked only when something refers to it), so that
/// `aclAppLog` resolves for Rust callers and is exported by the C library
/// (`sim/capi`).
#[used]
static KEEP_APP_LOG: unsafe extern "C" fn(
    crate::ffi::aclLogLevel,
    *const c_char,
    *const c_char,
    u32,
    *const c_char,
    ...
) = crate::ffi::aclAppLog;

// The definitions above have the header's types (bindgen's declarations).
const _: () = {
    let _ = [crate::ffi::aclFloat16ToFloat, aclFloat16ToFloat];
    let _ = [crate::ffi::aclFloatToFloat16, aclFloatToFloat16];
    let _ = [crate::ffi::aclDataTypeSize, aclDataTypeSize];
};
