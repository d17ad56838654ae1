//! The exception the Pythonic layer raises for misuse it catches
//! (`aclrt.AclUsageError`), defined here so that the checks made in Rust
//! ([`crate::memory`]) raise the same class as those made in Python.
#![deny(unsafe_code)]

pyo3::create_exception!(
    aclrt,
    AclUsageError,
    pyo3::exceptions::PyRuntimeError,
    "Misuse the layer caught before calling the runtime: a resource used after it \
(or its context) was released, a parent released before its children, a copy that \
cannot go in any direction, a buffer freed while a view or pending stream work still \
uses it."
);
