//! The Python half: builds the `acl` extension of `py/` and runs
//! its Python test suite (`py/tests`, plain `unittest`) in both simulator
//! run modes, so the README's single test command covers it.
//!
//! Skipped, with a `SKIPPED:` line, only where no `python3` is on `PATH`.
//! numpy-dependent cases skip themselves (and are counted below) where
//! numpy is missing; `.ci/run` installs numpy so CI runs them all.
//!
//! The suite includes the attack tests of the Pythonic layer and its
//! hypothesis state machine (skipped, and said so, where hypothesis is not
//! installed; `.ci/install_python.sh` installs it).
//!
//! The extension is built by a nested `cargo build` into `<target>/py` (its
//! own target dir inside the one this test was built in, `CARGO_TARGET_DIR`
//! included: the outer `cargo test` holds the lock of `<target>`), in
//! the dev profile, then staged as `acl/_native.abi3.so` beside
//! `py/python/acl/__init__.py`; the Pythonic package `aclrt` is imported
//! from `py/python` itself.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

fn python() -> Option<String> {
    let py = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let ok = Command::new(&py)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    ok.then_some(py)
}

/// The target directory this test binary was built in (`<target>/debug/deps/<exe>`), so that
/// `CARGO_TARGET_DIR` is honoured; `target/` of the repository where that cannot be told.
fn target_dir(root: &Path) -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.to_path_buf()))
        .filter(|dir| dir.is_dir())
        .unwrap_or_else(|| root.join("target"))
}

fn build(root: &Path, py: &str) -> PathBuf {
    let target = target_dir(root).join("py");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let started = Instant::now();
    let status = Command::new(cargo)
        .args(["build", "--locked", "--manifest-path"])
        .arg(root.join("py").join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .env("PYO3_PYTHON", py)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building py/ (the acl extension) failed");
    println!(
        "built the acl extension in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let lib = target.join("debug").join("lib_native.so");
    assert!(lib.exists(), "{} missing", lib.display());
    let stage = target.join("stage").join("acl");
    std::fs::create_dir_all(&stage).expect("stage dir");
    // The package's Python files and type stubs, as the wheel holds them.
    for file in [
        "__init__.py",
        "__init__.pyi",
        "rt.pyi",
        "util.pyi",
        "py.typed",
    ] {
        std::fs::copy(root.join("py/python/acl").join(file), stage.join(file))
            .unwrap_or_else(|e| panic!("copy acl/{file}: {e}"));
    }
    // Replace, never overwrite in place: a running interpreter may map the old file.
    let so = stage.join("_native.abi3.so");
    let _ = std::fs::remove_file(&so);
    std::fs::copy(&lib, &so).expect("copy the extension");
    target.join("stage")
}

#[test]
fn python_suite_in_both_run_modes() {
    let Some(py) = python() else {
        // CI installs python3 (.ci/install_python.sh): a skip there is a failure.
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but no python3 is on PATH: the Python tests of py/ cannot run"
        );
        println!("SKIPPED: no python3 on PATH: the Python tests of py/ (pyACL) did not run");
        return;
    };
    let root = root();
    let stage = build(&root, &py);
    let tests = root.join("py").join("tests");
    let path = std::env::join_paths([stage, root.join("py").join("python"), tests.clone()])
        .expect("paths");
    // The two run modes at once: each is its own process with its own
    // simulator, and the suite mostly waits (on its streams, its threads and
    // their timeouts), so together they take about as long as one.
    let runs: Vec<_> = ["host", "device"]
        .into_iter()
        .map(|mode| {
            let (py, tests, path) = (py.clone(), tests.clone(), path.clone());
            let run = std::thread::spawn(move || {
                let started = Instant::now();
                let out = Command::new(&py)
                    .args(["-m", "unittest", "discover", "-s"])
                    .arg(&tests)
                    .arg("-t")
                    .arg(&tests)
                    .env("PYTHONPATH", &path)
                    .env("ACLRT_SIM_RUN_MODE", mode)
                    .env_remove("ACLRT_SIM_TASK_DELAY")
                    .env("PYTHONDONTWRITEBYTECODE", "1")
                    .output()
                    .expect("python runs");
                (out, started.elapsed())
            });
            (mode, run)
        })
        .collect();
    for (mode, run) in runs {
        let (out, took) = run.join().expect("the thread running python");
        let err = String::from_utf8_lossy(&out.stderr);
        let summary: Vec<&str> = err
            .lines()
            .filter(|l| l.starts_with("Ran ") || l.starts_with("OK") || l.starts_with("FAILED"))
            .collect();
        println!(
            "python tests, ACLRT_SIM_RUN_MODE={mode}: {} ({:.1} s)",
            summary.join(", "),
            took.as_secs_f64()
        );
        assert!(
            out.status.success(),
            "the Python tests failed in {mode} mode:\n{err}"
        );
        let ran: usize = summary
            .iter()
            .find_map(|l| {
                l.strip_prefix("Ran ")?
                    .split_whitespace()
                    .next()?
                    .parse()
                    .ok()
            })
            .unwrap_or(0);
        assert!(
            ran >= 60,
            "only {ran} Python tests ran in {mode} mode:\n{err}"
        );
        if let Some(skips) = summary.iter().find(|l| l.contains("skipped")) {
            println!(
                "NOTE: some Python tests skipped themselves ({skips}): install numpy to run them"
            );
        }
    }
}
