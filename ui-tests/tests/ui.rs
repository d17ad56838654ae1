//! Runs every compile-fail case, `fail/*.rs` and `async-fail/*.rs`, in one
//! trybuild run (one `cargo check` project): each must fail to compile with
//! the `.stderr` snapshot next to it. The compile-pass twins run as ordinary
//! tests in `tests/pass.rs`.
//!
//! The snapshots are compiler output of the toolchain pinned in
//! `rust-toolchain.toml`. On another rustc the messages may differ: there
//! the cases are still checked to fail to compile, but their text is not
//! compared (set `ACLRT_UI_STRICT=1` to compare anyway).
//!
//! Regenerate the snapshots with
//! `TRYBUILD=overwrite cargo test -p aclrt-ui-tests --test ui`, then read
//! every changed `.stderr`: each must fail for the reason its header states.

#[test]
fn ui() {
    if pinned_toolchain() || std::env::var_os("ACLRT_UI_STRICT").is_some() {
        let t = trybuild::TestCases::new();
        t.compile_fail("fail/*.rs");
        t.compile_fail("async-fail/*.rs");
    } else {
        eprintln!(
            "rustc is not the pinned toolchain ({}): checking that every fail case fails \
             to compile, without comparing messages",
            PINNED
        );
        fails_without_snapshot();
    }
}

/// The `channel` of `rust-toolchain.toml`.
const PINNED: &str = "1.95.0";

fn rustc_version() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .expect("running rustc --version");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn pinned_toolchain() -> bool {
    rustc_version().starts_with(&format!("rustc {PINNED} "))
}

/// On another compiler: copy each case, without its `.stderr`, into a
/// scratch directory and run trybuild there. A case that compiles fails the
/// run ("N of M tests failed"); when every case fails to compile, trybuild
/// only reports that it wrote new snapshots (to `wip/`, git-ignored), which
/// is the expected outcome here.
fn fails_without_snapshot() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui-unpinned");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let mut cases = 0;
    for dir in ["fail", "async-fail"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "rs") {
                let name = format!("{dir}-{}", path.file_name().unwrap().to_str().unwrap());
                std::fs::copy(&path, scratch.join(name)).unwrap();
                cases += 1;
            }
        }
    }
    let outcome = std::panic::catch_unwind(|| {
        let t = trybuild::TestCases::new();
        t.compile_fail(scratch.join("*.rs"));
    });
    let message = match outcome {
        Ok(()) => String::new(),
        Err(payload) => payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default(),
    };
    assert_eq!(
        message,
        format!("successfully created new stderr files for {cases} test cases"),
        "some compile-fail case did not fail to compile"
    );
}
