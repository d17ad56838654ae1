//! Holder crate for the trybuild cases in `fail/` and `pass/`.
