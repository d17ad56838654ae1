//! Exports `aclAppLog` from `libascendcl.so`: the function is defined in C
//! (aclrt-sim's `src/raw/app_log.c`, C-variadic), and the list of exports
//! rustc gives the linker names only functions defined in Rust. A second
//! version script adds it (GNU ld and lld merge version scripts).

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:rerun-if-changed=exports.map");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={dir}/exports.map");
}
