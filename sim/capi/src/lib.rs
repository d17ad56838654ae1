//! `libascendcl.so`: the simulator (crate [`aclrt_sim`]) as a C library.
//!
//! This crate has no code of its own. Its only job is to be a `cdylib` named
//! like the real AscendCL runtime, so that
//!
//! ```text
//! cargo build -p aclrt-sim-capi --release
//! cc app.c -I sys/include -L target/release -lascendcl
//! LD_LIBRARY_PATH=target/release ./a.out
//! ```
//!
//! links a C program (compiled against the project's header
//! `sys/include/acl/acl.h`) with the software NPU. The exported symbols are
//! the `#[no_mangle] extern "C"` entry points of `aclrt_sim` (every function
//! of the header: `aclInit`, `aclrtMalloc`, ...): a `cdylib` exports the
//! C-ABI symbols of every crate it links, and naming the crate below links
//! it. The simulator's environment variables (`ACLRT_SIM_*`) configure it as
//! for Rust programs.
//!
//! Rust programs use the crate `aclrt_sim` (or `aclrt` with its default
//! `sim` feature) directly instead.

// Links the simulator, whose `#[no_mangle]` entry points this library
// exports.
extern crate aclrt_sim;
