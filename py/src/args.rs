//! Argument parsing with pyACL's rules.
//!
//! pyACL's wrappers are `METH_VARARGS` functions that call
//! `PyArg_ParseTuple`: positional arguments only, an exact count, and on any
//! mismatch `TypeError("acl.rt.<name> args parse failed")`. The formats are
//! `k` (C `unsigned long`: addresses, handles, sizes; a negative `int` is
//! taken modulo 2^64, as `PyLong_AsUnsignedLongMask` does), `K` (thread
//! ids), `i` (C `int`: device ids, timeouts, kinds) and `I` (C `unsigned
//! int`: flags, masked likewise).
#![deny(unsafe_code)]

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// One positional argument of a given C format.
pub trait Arg: Sized {
    /// The value, or `None` when the object does not fit the format.
    fn from_py(o: &Bound<'_, PyAny>) -> Option<Self>;
}

/// `k` / `K`: an `int`, masked to 64 bits.
impl Arg for u64 {
    fn from_py(o: &Bound<'_, PyAny>) -> Option<Self> {
        o.extract::<u64>()
            .ok()
            .or_else(|| o.extract::<i64>().ok().map(|v| v as u64))
    }
}

/// `i`: an `int` that fits a C `int`.
impl Arg for i32 {
    fn from_py(o: &Bound<'_, PyAny>) -> Option<Self> {
        o.extract::<i32>().ok()
    }
}

/// `I`: an `int`, masked to 32 bits.
impl Arg for u32 {
    fn from_py(o: &Bound<'_, PyAny>) -> Option<Self> {
        o.extract::<i64>()
            .ok()
            .map(|v| v as u32)
            .or_else(|| o.extract::<u64>().ok().map(|v| v as u32))
    }
}

/// A whole argument tuple.
pub trait Args: Sized {
    /// The parsed values, or `None` on a count or format mismatch.
    fn from_tuple(t: &Bound<'_, PyTuple>) -> Option<Self>;
}

macro_rules! tuple_args {
    ($n:literal; $($t:ident $i:tt),*) => {
        impl<$($t: Arg),*> Args for ($($t,)*) {
            #[allow(unused_variables)]
            fn from_tuple(t: &Bound<'_, PyTuple>) -> Option<Self> {
                if t.len() != $n {
                    return None;
                }
                Some(($($t::from_py(&t.get_item($i).ok()?)?,)*))
            }
        }
    };
}
tuple_args!(0;);
tuple_args!(1; A 0);
tuple_args!(2; A 0, B 1);
tuple_args!(3; A 0, B 1, C 2);
tuple_args!(4; A 0, B 1, C 2, D 3);
tuple_args!(5; A 0, B 1, C 2, D 3, E 4);
tuple_args!(6; A 0, B 1, C 2, D 3, E 4, F 5);
tuple_args!(7; A 0, B 1, C 2, D 3, E 4, F 5, G 6);
tuple_args!(8; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// pyACL's parse error for the function `name` (`"acl.rt.malloc"`).
pub fn parse_error(name: &str) -> PyErr {
    PyTypeError::new_err(format!("{name} args parse failed"))
}

/// Parses `args` for the function `name`.
pub fn parse<T: Args>(args: &Bound<'_, PyTuple>, name: &str) -> PyResult<T> {
    T::from_tuple(args).ok_or_else(|| parse_error(name))
}

/// pyACL's functions are positional-only (`METH_VARARGS`): a keyword is
/// the parse error of the docs, `TypeError("acl.rt.<name> args parse failed")`.
pub fn no_keywords(kwargs: Option<&Bound<'_, PyDict>>, name: &str) -> PyResult<()> {
    match kwargs {
        Some(k) if !k.is_empty() => Err(parse_error(name)),
        _ => Ok(()),
    }
}
