#![cfg(feature = "sim")]
//! The `system` backend of aclrt-sys, proven without a real NPU: a fake CANN
//! toolkit (our header + the simulator's C library, built by `sim/capi`, as
//! `lib64/libascendcl.so`) is found through `ASCEND_TOOLKIT_HOME`, linked
//! dynamically, and a tiny application built on it runs. Also: the search
//! failure lists every path it tried, and a wrong feature selection is a
//! `compile_error!`.

mod nested;
use nested::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

/// Nested builds of one aclrt-sys unit with different environments rerun
/// its build script; run them one at a time for readable failures.
static SERIAL: Mutex<()> = Mutex::new(());

fn lock() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn fixture_dir() -> PathBuf {
    sys_dir().join("tests/fixtures/system-app")
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `<tmp>/fake-toolkit` with `include/acl/...` and `lib64/libascendcl.so`.
fn fake_toolkit() -> PathBuf {
    let root = scratch("fake-toolkit");
    copy_dir(&sys_dir().join("include"), &root.join("include"));
    std::fs::create_dir_all(root.join("lib64")).unwrap();
    std::fs::copy(
        sim_cdylib_dir().join("libascendcl.so"),
        root.join("lib64/libascendcl.so"),
    )
    .unwrap();
    root
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn system_backend_links_a_fake_toolkit_and_runs() {
    let _serial = lock();
    let toolkit = fake_toolkit();
    let empty = scratch("empty-home-path");
    let out = run_with_limit(
        nested_cargo(&fixture_dir())
            .args(["build", "--bin", "system-app"])
            .env("ASCEND_TOOLKIT_HOME", &toolkit)
            .env("ASCEND_HOME_PATH", &empty),
        Duration::from_secs(600),
    );
    assert!(
        out.status.success(),
        "fixture build failed:\n{}",
        show(&out)
    );
    let exe = nested_target_dir().join("debug/system-app");
    assert!(exe.is_file(), "no {}", exe.display());

    // Linked dynamically against the toolkit's library: runs with it on the
    // loader path ...
    let run = run_with_limit(
        Command::new(&exe).env("LD_LIBRARY_PATH", toolkit.join("lib64")),
        Duration::from_secs(60),
    );
    assert!(run.status.success(), "{}", show(&run));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("system-app: ok, checksum 126830"),
        "{stdout}"
    );

    // ... and cannot start without it (so the symbols really come from
    // lib64/libascendcl.so, not from a statically linked simulator).
    let missing = run_with_limit(
        Command::new(&exe).env_remove("LD_LIBRARY_PATH"),
        Duration::from_secs(60),
    );
    assert!(!missing.status.success(), "{}", show(&missing));
    assert!(
        stderr_of(&missing).contains("libascendcl.so"),
        "{}",
        show(&missing)
    );
}

#[test]
fn system_backend_without_toolkit_fails_listing_every_path_tried() {
    let _serial = lock();
    let default = Path::new("/usr/local/Ascend/ascend-toolkit/latest");
    assert!(
        !default.join("lib64/libascendcl.so").exists(),
        "this machine has a real toolkit at the default location"
    );
    let home = scratch("empty-toolkit-home");
    let home_path = scratch("empty-home-path");
    let out = run_with_limit(
        nested_cargo(&fixture_dir())
            .args(["build", "--bin", "system-app"])
            .env("ASCEND_TOOLKIT_HOME", &home)
            .env("ASCEND_HOME_PATH", &home_path),
        Duration::from_secs(600),
    );
    assert!(!out.status.success(), "build without a toolkit succeeded");
    let err = stderr_of(&out);
    assert!(err.contains("no CANN toolkit found"), "{err}");
    for root in [home.as_path(), home_path.as_path(), default] {
        for sub in ["lib64", "runtime/lib64", "lib", "acllib/lib64"] {
            let p = root.join(sub);
            assert!(
                err.contains(&p.display().to_string()),
                "{} missing from the error:\n{err}",
                p.display()
            );
        }
    }
    for var in [
        "ASCEND_TOOLKIT_HOME",
        "ASCEND_HOME_PATH",
        "ASCENDCL_SYS_LIB_DIR",
    ] {
        assert!(err.contains(var), "{var} not mentioned:\n{err}");
    }
}

#[test]
fn toolkit_without_header_is_rejected_naming_the_include_dirs() {
    let _serial = lock();
    // A library but no acl/acl.h: the search goes on and finally fails.
    let root = scratch("toolkit-without-header");
    std::fs::create_dir_all(root.join("lib64")).unwrap();
    std::fs::copy(
        sim_cdylib_dir().join("libascendcl.so"),
        root.join("lib64/libascendcl.so"),
    )
    .unwrap();
    let empty = scratch("empty-home-path");
    let out = run_with_limit(
        nested_cargo(&fixture_dir())
            .args(["build", "--bin", "system-app"])
            .env("ASCEND_TOOLKIT_HOME", &root)
            .env("ASCEND_HOME_PATH", &empty),
        Duration::from_secs(600),
    );
    assert!(!out.status.success());
    let err = stderr_of(&out);
    assert!(
        err.contains(&format!(
            "{} (ASCEND_TOOLKIT_HOME): no acl/acl.h",
            root.join("include").display()
        )),
        "{err}"
    );
}

#[test]
fn no_backend_feature_is_a_compile_error() {
    let _serial = lock();
    let out = run_with_limit(
        nested_cargo(&workspace_root()).args([
            "build",
            "-p",
            "aclrt-sys",
            "--lib",
            "--no-default-features",
        ]),
        Duration::from_secs(600),
    );
    assert!(!out.status.success(), "built without a backend");
    let err = stderr_of(&out);
    assert!(
        err.contains("aclrt-sys: select a backend. Enable the feature `sim`"),
        "{err}"
    );
}

#[test]
fn both_backend_features_are_a_compile_error() {
    let _serial = lock();
    let out = run_with_limit(
        nested_cargo(&workspace_root()).args([
            "build",
            "-p",
            "aclrt-sys",
            "--lib",
            "--features",
            "sim,system",
        ]),
        Duration::from_secs(600),
    );
    assert!(!out.status.success(), "built with both backends");
    let err = stderr_of(&out);
    assert!(
        err.contains("aclrt-sys: the features `sim` and `system` are mutually exclusive"),
        "{err}"
    );
}
