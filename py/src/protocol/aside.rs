//! Running a release with the thread's pending error set aside.
//!
//! A deferred release runs when the last export of a buffer ends, which may
//! be inside a deallocation while an exception propagates (the last view
//! dies with the frame that raised). The interpreter forbids running Python
//! code with an exception set: the call would fail with `SystemError`, and
//! the interpreter then crashes restoring the original. So the error
//! indicator is emptied before the release and restored after it
//! ([`with_error_aside`]); an error the release itself raises is reported
//! by `f` (as unraisable), never left set.
//!
//! `take` and `restore` are the indicator's (`PyErr::take`/`restore` in the
//! library, a per-thread slot in the models).
#![deny(unsafe_code)]

use super::sync::mutant;

/// Runs `f` with the pending error (`take()`) set aside, then restores it.
pub fn with_error_aside<E, T>(
    take: impl FnOnce() -> Option<E>,
    restore: impl FnOnce(E),
    f: impl FnOnce() -> T,
) -> T {
    if mutant("release-with-error-pending") {
        // The break: the release runs with the error set.
        return f();
    }
    let pending = take();
    let out = f();
    if let Some(e) = pending {
        restore(e);
    }
    out
}
