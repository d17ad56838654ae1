//! The base types of `acl/acl_base.h`: application logging ([`app_log`],
//! [`app_log!`](crate::app_log!), [`LogLevel`]), element types
//! ([`DataType`]) and half precision values ([`Float16`]), with the
//! runtime's own conversions and sizes.

use std::ffi::CString;

use crate::ffi;
use crate::memory::DeviceRepr;

/// Severity of an application log record (`aclLogLevel`). A record is
/// written when its level is at least the process's log level
/// (`ASCEND_GLOBAL_LOG_LEVEL`: 0 debug .. 3 error, 4 none; default 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[doc(alias = "aclLogLevel")]
pub enum LogLevel {
    /// `ACL_DEBUG` (0).
    #[doc(alias = "ACL_DEBUG")]
    Debug = 0,
    /// `ACL_INFO` (1).
    #[doc(alias = "ACL_INFO")]
    Info = 1,
    /// `ACL_WARNING` (2).
    #[doc(alias = "ACL_WARNING")]
    Warning = 2,
    /// `ACL_ERROR` (3).
    #[doc(alias = "ACL_ERROR")]
    Error = 3,
}

/// A C string of `s` without its interior NULs.
fn c_text(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

/// Writes one application log record through the runtime's logger
/// (`aclAppLog`), attributed to `function`, `file` and `line`: the text is
/// `<thread id> <function>:<file>:<line>: "<message>"`, cut to 1023 bytes.
/// Nothing is written below the process's log level ([`LogLevel`]). The
/// message is text, never a format; interior NUL characters are dropped.
/// Needs no initialised runtime. [`app_log!`](crate::app_log!) fills in the
/// caller's location.
#[doc(alias = "aclAppLog")]
#[doc(alias = "ACL_APP_LOG")]
pub fn app_log(level: LogLevel, function: &str, file: &str, line: u32, message: &str) {
    ffi::base::app_log(
        level as u32,
        &c_text(function),
        &c_text(file),
        line,
        &c_text(message),
    );
}

/// Writes one application log record (`ACL_APP_LOG`) with the caller's
/// module path, file and line: `app_log!(level, "format", args...)` formats
/// as [`format!`] does and calls [`app_log`](crate::app_log()).
///
/// ```
/// use aclrt::LogLevel;
/// let model = 7;
/// aclrt::app_log!(LogLevel::Info, "model {model} loaded");
/// ```
#[macro_export]
macro_rules! app_log {
    ($level:expr, $($arg:tt)+) => {
        $crate::app_log(
            $level,
            ::core::module_path!(),
            ::core::file!(),
            ::core::line!(),
            &::std::format!($($arg)+),
        )
    };
}

/// Element types of tensors and buffers (`aclDataType`), with the real
/// API's numbering (`ACL_DT_UNDEFINED`, -1, is [`DataType::from_raw`]'s
/// `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[doc(alias = "aclDataType")]
pub enum DataType {
    /// `ACL_FLOAT` (0): 32-bit float.
    Float = 0,
    /// `ACL_FLOAT16` (1): [`Float16`].
    Float16 = 1,
    /// `ACL_INT8` (2).
    Int8 = 2,
    /// `ACL_INT32` (3).
    Int32 = 3,
    /// `ACL_UINT8` (4).
    Uint8 = 4,
    /// `ACL_INT16` (6).
    Int16 = 6,
    /// `ACL_UINT16` (7).
    Uint16 = 7,
    /// `ACL_UINT32` (8).
    Uint32 = 8,
    /// `ACL_INT64` (9).
    Int64 = 9,
    /// `ACL_UINT64` (10).
    Uint64 = 10,
    /// `ACL_DOUBLE` (11).
    Double = 11,
    /// `ACL_BOOL` (12).
    Bool = 12,
    /// `ACL_STRING` (13): size 0.
    String = 13,
    /// `ACL_COMPLEX64` (16).
    Complex64 = 16,
    /// `ACL_COMPLEX128` (17).
    Complex128 = 17,
    /// `ACL_BF16` (27): bfloat16.
    Bf16 = 27,
    /// `ACL_INT4` (29): counted as one byte.
    Int4 = 29,
    /// `ACL_UINT1` (30): counted as one byte.
    Uint1 = 30,
    /// `ACL_COMPLEX32` (33).
    Complex32 = 33,
    /// `ACL_HIFLOAT8` (34).
    HiFloat8 = 34,
    /// `ACL_FLOAT8_E5M2` (35).
    Float8E5M2 = 35,
    /// `ACL_FLOAT8_E4M3FN` (36).
    Float8E4M3FN = 36,
    /// `ACL_FLOAT8_E8M0` (37).
    Float8E8M0 = 37,
    /// `ACL_FLOAT6_E3M2` (38).
    Float6E3M2 = 38,
    /// `ACL_FLOAT6_E2M3` (39).
    Float6E2M3 = 39,
    /// `ACL_FLOAT4_E2M1` (40).
    Float4E2M1 = 40,
    /// `ACL_FLOAT4_E1M2` (41).
    Float4E1M2 = 41,
}

impl DataType {
    /// Every value, in the C numbering's order.
    pub const ALL: [DataType; 27] = [
        DataType::Float,
        DataType::Float16,
        DataType::Int8,
        DataType::Int32,
        DataType::Uint8,
        DataType::Int16,
        DataType::Uint16,
        DataType::Uint32,
        DataType::Int64,
        DataType::Uint64,
        DataType::Double,
        DataType::Bool,
        DataType::String,
        DataType::Complex64,
        DataType::Complex128,
        DataType::Bf16,
        DataType::Int4,
        DataType::Uint1,
        DataType::Complex32,
        DataType::HiFloat8,
        DataType::Float8E5M2,
        DataType::Float8E4M3FN,
        DataType::Float8E8M0,
        DataType::Float6E3M2,
        DataType::Float6E2M3,
        DataType::Float4E2M1,
        DataType::Float4E1M2,
    ];

    /// The C value (`aclDataType`).
    pub fn to_raw(self) -> i32 {
        self as i32
    }

    /// The type of a C value; `None` for `ACL_DT_UNDEFINED` and values the
    /// API does not name.
    pub fn from_raw(raw: i32) -> Option<DataType> {
        DataType::ALL.into_iter().find(|t| t.to_raw() == raw)
    }

    /// Bytes of one element, as the runtime counts them
    /// (`aclDataTypeSize`): 0 for [`String`](DataType::String), 1 for the
    /// sub-byte types, and 8 for the 6- and 4-bit floats (the runtime's
    /// default).
    #[doc(alias = "aclDataTypeSize")]
    pub fn size(self) -> usize {
        ffi::base::data_type_size(self.to_raw())
    }
}

/// A half precision value (`aclFloat16`): 16 bits in IEEE binary16 layout,
/// usable as a device and pinned memory element. The conversions are the
/// runtime's (`aclFloatToFloat16`, `aclFloat16ToFloat`): rounding to
/// nearest, ties to even, and saturating: values beyond the half range,
/// infinities and NaN become ±65504; a half infinity reads ±65536.0 and
/// a half NaN 98304.0.
///
/// ```
/// use aclrt::Float16;
/// assert_eq!(Float16::from_f32(0.5).to_f32(), 0.5);
/// assert_eq!(Float16::from_f32(f32::INFINITY).to_f32(), 65504.0);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(transparent)]
#[doc(alias = "aclFloat16")]
pub struct Float16(u16);

impl Float16 {
    /// The half nearest to `value` (`aclFloatToFloat16`).
    #[doc(alias = "aclFloatToFloat16")]
    pub fn from_f32(value: f32) -> Float16 {
        Float16(ffi::base::float_to_half(value))
    }

    /// Its value as single precision (`aclFloat16ToFloat`).
    #[doc(alias = "aclFloat16ToFloat")]
    pub fn to_f32(self) -> f32 {
        ffi::base::half_to_float(self.0)
    }

    /// The half with these bits.
    pub const fn from_bits(bits: u16) -> Float16 {
        Float16(bits)
    }

    /// Its bits.
    pub const fn to_bits(self) -> u16 {
        self.0
    }
}

impl core::fmt::Debug for Float16 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Float16({} = {:#06x})", self.to_f32(), self.0)
    }
}

impl From<f32> for Float16 {
    fn from(value: f32) -> Float16 {
        Float16::from_f32(value)
    }
}

impl From<Float16> for f32 {
    fn from(value: Float16) -> f32 {
        value.to_f32()
    }
}

impl DeviceRepr for Float16 {}
