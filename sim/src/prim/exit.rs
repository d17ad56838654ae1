//! Process exit: a function run when the process exits (the C library's
//! `atexit`), and ending the process with a chosen status once the output
//! is flushed (as a memory checker's error exit code does).

use core::ffi::c_int;

unsafe extern "C" {
    // SAFETY (of the declarations): the C library's functions with these
    // exact POSIX/ISO C signatures.
    /// ISO C `atexit`: registers a function to run at `exit`.
    safe fn atexit(f: extern "C" fn()) -> c_int;
    /// ISO C `fflush(NULL)`: flushes every open output stream.
    fn fflush(stream: *mut core::ffi::c_void) -> c_int;
    /// POSIX `_exit`: ends the process at once with `status`.
    safe fn _exit(status: c_int) -> !;
}

/// Registers `f` to run when the process exits normally (`exit`, or a
/// return from `main`; in a shared library, also when it is unloaded).
/// `false` if the C library refused (out of room).
///
/// Under Miri (which cannot call `atexit`) nothing is registered and the
/// answer is `false`, as for a refusal: the exit summary is not printed.
pub(crate) fn at_exit(f: extern "C" fn()) -> bool {
    if cfg!(miri) {
        let _ = f;
        return false;
    }
    atexit(f) == 0
}

/// Flushes the C library's output streams and ends the process with
/// `status` at once (from an exit handler: the handlers registered before
/// it do not run).
pub(crate) fn exit_with(status: i32) -> ! {
    // SAFETY: `fflush` accepts a null stream (flush every output stream) and
    // has no other precondition; called from an exit handler, no stream is
    // being closed concurrently by the exiting thread.
    unsafe { fflush(core::ptr::null_mut()) };
    _exit(status)
}
