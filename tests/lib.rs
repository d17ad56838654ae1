//! Holder crate for the integration tests of aclrt: its own workspace
//! member, so that their dev-dependencies (proptest) are built only when the
//! tests are, never for `cargo run --example`.
