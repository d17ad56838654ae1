//! The packaged aclrt-sys publishes its header directory (`links =
//! "ascendcl"`): it must exist inside the unpacked package and hold the
//! header a C shim of a downstream crate would include.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-env-changed=DEP_ASCENDCL_INCLUDE");
    let backend = std::env::var("DEP_ASCENDCL_BACKEND").expect("aclrt-sys publishes its backend");
    assert_eq!(backend, "sim", "the default backend is the simulator");
    let include =
        std::env::var("DEP_ASCENDCL_INCLUDE").expect("aclrt-sys publishes its include dir");
    let header = Path::new(&include).join("acl/acl.h");
    assert!(
        header.is_file(),
        "{} is not in the package",
        header.display()
    );
    assert!(
        include.contains("packaged"),
        "the header must come from the unpacked package, not the workspace: {include}"
    );
    println!(
        "cargo:rustc-env=ACLRT_DOWNSTREAM_HEADER={}",
        header.display()
    );
}
