//! Generates the compile-pass harness: every `pass/*.rs` and
//! `async-pass/*.rs` case becomes a module of ONE test binary
//! (`tests/pass.rs`) with a `#[test]` that runs its `main` on the simulator.
//! One binary links once; trybuild would build and link each case on its own.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = String::new();
    for dir in ["pass", "async-pass"] {
        println!("cargo:rerun-if-changed={dir}");
        let mut cases: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("reading {dir}/: {e}"))
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        cases.sort();
        for path in cases {
            println!("cargo:rerun-if-changed={}", path.display());
            let stem = path.file_stem().unwrap().to_str().unwrap();
            let module = format!("{}_{}", dir.replace('-', "_"), stem);
            // `include!` inside a module: the case is compiled exactly as
            // written (its `use` lines, items and `fn main`), and `run` lends
            // its private `main` to the test.
            writeln!(
                out,
                "mod {module} {{\n    include!({path:?});\n    \
                 pub(super) fn run() -> Result<(), aclrt::Error> {{ main() }}\n}}\n\
                 #[test]\nfn {module}_runs() {{\n    let _sim = aclrt::sim::exclusive();\n    \
                 {module}::run().expect(\"{dir}/{stem}.rs returned an error\");\n}}\n",
                path = path.display().to_string(),
            )
            .unwrap();
        }
    }
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("pass_cases.rs");
    std::fs::write(dest, out).expect("writing the pass harness");
}
