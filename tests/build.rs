//! The cfg `aclrt_backend = "sim"`, which aclrt's own build script sets for
//! the library and its examples: `tests/failure_rule/sweep.rs` compiles the examples
//! as modules, and their simulator-only parts need it. This crate always
//! builds aclrt with the feature `sim` (see `Cargo.toml`).

fn main() {
    println!("cargo:rustc-cfg=aclrt_backend=\"sim\"");
}
