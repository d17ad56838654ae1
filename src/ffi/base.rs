//! The base-type functions of `acl/acl_base.h`: the half conversions,
//! `aclDataTypeSize` and `aclAppLog`. None takes a handle or memory; the
//! one pointer-taking call passes strings this function owns.

use core::ffi::CStr;

use aclrt_sys as sys;

/// `aclFloatToFloat16`.
pub(crate) fn float_to_half(value: f32) -> u16 {
    // SAFETY: a plain value in and out; the function has no preconditions
    // and needs no initialised runtime.
    unsafe { sys::aclFloatToFloat16(value) }
}

/// `aclFloat16ToFloat`.
pub(crate) fn half_to_float(value: u16) -> f32 {
    // SAFETY: a plain value in and out, as above.
    unsafe { sys::aclFloat16ToFloat(value) }
}

/// `aclDataTypeSize`.
pub(crate) fn data_type_size(data_type: i32) -> usize {
    // SAFETY: a plain value in and out; any value is answered (unknown
    // values count 8).
    unsafe { sys::aclDataTypeSize(data_type) }
}

/// `aclAppLog(level, func, file, line, "%s", message)`: the message is
/// passed as text, never as a format.
pub(crate) fn app_log(level: u32, func: &CStr, file: &CStr, line: u32, message: &CStr) {
    // SAFETY: the four strings are NUL-terminated and outlive the call; the
    // format "%s" is matched by exactly one C string argument; the runtime
    // keeps none of the pointers.
    unsafe {
        sys::aclAppLog(
            level,
            func.as_ptr(),
            file.as_ptr(),
            line,
            c"%s".as_ptr(),
            message.as_ptr(),
        )
    }
}
