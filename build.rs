//! Turns the metadata that aclrt-sys publishes (`links = "ascendcl"`) into
//! cfgs: `aclrt_backend = "sim"` or `aclrt_backend = "system"`.

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_ASCENDCL_BACKEND");
    let backend = std::env::var("DEP_ASCENDCL_BACKEND").unwrap_or_default();
    if backend == "sim" || backend == "system" {
        println!("cargo:rustc-cfg=aclrt_backend=\"{backend}\"");
    }
}
