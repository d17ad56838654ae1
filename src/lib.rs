//! aclrt: misuse-proof Rust bindings to the AscendCL runtime.
pub use aclrt_sys as sys;
