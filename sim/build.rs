//! Compiles the simulator's one C file: `aclAppLog`, the API's C-variadic
//! function (stable Rust cannot define one). It formats with `vsnprintf` and
//! hands the text to the Rust side (`src/raw/base.rs`).

fn main() {
    println!("cargo:rerun-if-changed=src/raw/app_log.c");
    cc::Build::new()
        .file("src/raw/app_log.c")
        .warnings(true)
        .extra_warnings(true)
        .compile("aclrt_sim_app_log");
}
