//! Turns the metadata that aclrt-sys publishes (`links = "ascendcl"`) into
//! cfgs: `aclrt_backend = "sim"` or `aclrt_backend = "system"`.

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_ASCENDCL_BACKEND");
    println!("cargo:rerun-if-env-changed=DEP_ASCENDCL_INCLUDE");
    let backend = std::env::var("DEP_ASCENDCL_BACKEND").unwrap_or_default();
    if backend == "sim" || backend == "system" {
        println!("cargo:rustc-cfg=aclrt_backend=\"{backend}\"");
    }
    let include = std::env::var("DEP_ASCENDCL_INCLUDE").unwrap_or_default();
    println!("cargo:rustc-env=ACLRT_HEADER_DIR={include}");
}
