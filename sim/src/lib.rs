//! aclrt-sim: a software AscendCL runtime.
#![allow(missing_docs)]
pub mod ffi {
    #![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, missing_docs, clippy::all, clippy::undocumented_unsafe_blocks)]
    include!("../../sys/src/bindings.rs");
}
