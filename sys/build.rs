//! Build script of aclrt-sys: a dispatcher over the two backends.
//!
//! * `sim` (default): the symbols come from the `aclrt-sim` crate, linked as a
//!   normal Rust dependency; nothing to search for.
//! * `system`: find the real `libascendcl` of a CANN toolkit and link it.
//!
//! Both publish `DEP_ASCENDCL_BACKEND` and `DEP_ASCENDCL_INCLUDE` (through
//! `links = "ascendcl"`) for the build scripts of dependent crates.
//!
//! On docs.rs (`DOCS_RS` set) there is no toolkit and nothing is linked
//! (rustdoc does not link), so `system` does not search for one: it publishes
//! the backend and the crate's own header and returns.

use std::env;
use std::path::{Path, PathBuf};

/// Every environment variable this script reads.
const ENV_VARS: &[&str] = &[
    "DOCS_RS",
    "ASCENDCL_SYS_LIB_DIR",
    "ASCENDCL_SYS_INCLUDE_DIR",
    "ASCEND_TOOLKIT_HOME",
    "ASCEND_HOME_PATH",
];

/// Where a toolkit is looked for when no variable names one.
const DEFAULT_TOOLKIT: &str = "/usr/local/Ascend/ascend-toolkit/latest";

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=include");
    for var in ENV_VARS {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let sim = env::var_os("CARGO_FEATURE_SIM").is_some();
    let system = env::var_os("CARGO_FEATURE_SYSTEM").is_some();
    let own_include = Path::new(&env::var("CARGO_MANIFEST_DIR").unwrap()).join("include");
    match (sim, system) {
        (true, false) => {
            println!("cargo:backend=sim");
            println!("cargo:include={}", own_include.display());
        }
        (false, true) if env::var_os("DOCS_RS").is_some() => {
            println!("cargo:backend=system");
            println!("cargo:include={}", own_include.display());
        }
        (false, true) => link_system(),
        // src/lib.rs turns this into a compile_error! that says what to do.
        _ => println!("cargo:backend=invalid"),
    }
}

/// A toolkit layout candidate: where the library and the headers may be.
struct Candidate {
    origin: String,
    lib_dirs: Vec<PathBuf>,
    include_dirs: Vec<PathBuf>,
}

fn toolkit_candidate(origin: String, root: &Path) -> Candidate {
    Candidate {
        origin,
        lib_dirs: ["lib64", "runtime/lib64", "lib", "acllib/lib64"]
            .iter()
            .map(|d| root.join(d))
            .collect(),
        include_dirs: ["include", "runtime/include", "acllib/include"]
            .iter()
            .map(|d| root.join(d))
            .collect(),
    }
}

fn candidates() -> Vec<Candidate> {
    let mut out = Vec::new();
    if let Some(lib) = env::var_os("ASCENDCL_SYS_LIB_DIR") {
        let lib = PathBuf::from(lib);
        let include_dirs = match env::var_os("ASCENDCL_SYS_INCLUDE_DIR") {
            Some(inc) => vec![PathBuf::from(inc)],
            None => lib
                .parent()
                .map(|p| vec![p.join("include")])
                .unwrap_or_default(),
        };
        out.push(Candidate {
            origin: "ASCENDCL_SYS_LIB_DIR".into(),
            lib_dirs: vec![lib],
            include_dirs,
        });
    }
    for var in ["ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"] {
        if let Some(root) = env::var_os(var) {
            out.push(toolkit_candidate(var.into(), Path::new(&root)));
        }
    }
    out.push(toolkit_candidate(
        "default location".into(),
        Path::new(DEFAULT_TOOLKIT),
    ));
    out
}

fn has_library(dir: &Path) -> bool {
    dir.join("libascendcl.so").is_file() || dir.join("libascendcl.a").is_file()
}

fn link_system() {
    let mut tried = Vec::new();
    for cand in candidates() {
        for lib in &cand.lib_dirs {
            if !has_library(lib) {
                tried.push(format!(
                    "  {} ({}): no libascendcl.so",
                    lib.display(),
                    cand.origin
                ));
                continue;
            }
            let include = cand
                .include_dirs
                .iter()
                .find(|inc| inc.join("acl/acl.h").is_file());
            let Some(include) = include else {
                for inc in &cand.include_dirs {
                    tried.push(format!(
                        "  {} ({}): no acl/acl.h",
                        inc.display(),
                        cand.origin
                    ));
                }
                continue;
            };
            println!("cargo:rustc-link-search=native={}", lib.display());
            println!("cargo:rustc-link-lib=dylib=ascendcl");
            println!("cargo:backend=system");
            println!("cargo:include={}", include.display());
            println!("cargo:lib_dir={}", lib.display());
            return;
        }
    }
    panic!(
        "\n\naclrt-sys (feature `system`): no CANN toolkit found.\n\
         Paths tried, in order:\n{}\n\
         Set ASCENDCL_SYS_LIB_DIR (and ASCENDCL_SYS_INCLUDE_DIR), ASCEND_TOOLKIT_HOME or\n\
         ASCEND_HOME_PATH (e.g. `source /usr/local/Ascend/ascend-toolkit/set_env.sh`),\n\
         or build with the default `sim` feature to use the built-in simulator.\n",
        tried.join("\n")
    );
}
