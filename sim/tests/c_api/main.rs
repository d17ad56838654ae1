//! The simulator's C API by area, one test binary: each module checks one
//! area of the runtime (devices, contexts, streams, events, memory, copies,
//! kernels, callbacks, host registration, pools, the address space, init
//! and finalize, the control API, traces, run modes) as a C program calls
//! it. One binary links once; every test takes the simulator with
//! `exclusive()`.

#[path = "../common/mod.rs"]
mod common;

mod address_space;
mod callback;
mod context;
mod control;
mod copy;
mod device;
mod event;
mod event_flags;
mod hostreg;
mod init;
mod ipc_processes;
mod kernel;
mod lifecycle;
mod memory;
mod misc;
mod pool;
mod run_mode;
mod runtime_ext;
mod stream;
mod surface;
mod trace;
