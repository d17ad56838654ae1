//! Helpers for tests that run nested builds: cargo, the simulator's
//! `libascendcl.so`, a C compiler, child processes with a time limit.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The cargo that runs these tests (`CARGO`, set by cargo), else `cargo`.
pub fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// The workspace root (the parent of `sys/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("sys/ has a parent")
        .to_path_buf()
}

/// `sys/` itself.
pub fn sys_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory of this test binary under cargo's target tmp dir.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The one target directory shared by every nested cargo build of these
/// tests, so that each crate is compiled once.
pub fn nested_target_dir() -> PathBuf {
    scratch("nested-target")
}

/// A cargo command for a nested build: own target dir, no inherited
/// backend-search variables, quiet colours.
pub fn nested_cargo(dir: &Path) -> Command {
    let mut cmd = Command::new(cargo());
    cmd.current_dir(dir)
        .env("CARGO_TARGET_DIR", nested_target_dir())
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("ASCENDCL_SYS_LIB_DIR")
        .env_remove("ASCENDCL_SYS_INCLUDE_DIR")
        .env_remove("ASCEND_TOOLKIT_HOME")
        .env_remove("ASCEND_HOME_PATH")
        .env_remove("RUSTC_WORKSPACE_WRAPPER");
    cmd
}

/// Runs `cmd` to completion, killing it after `limit`; returns its output.
/// `limit` is a hang guard (callers pass one to ten minutes, far above any
/// normal run), not a claim about how fast the program is.
pub fn run_with_limit(cmd: &mut Command, limit: Duration) -> Output {
    let desc = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {desc}: {e}"));
    // Drain the pipes on threads so a chatty child cannot block.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).ok();
        v
    });
    let t_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut v).ok();
        v
    });
    let t0 = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t0.elapsed() > limit {
            child.kill().ok();
            let st = child.wait().unwrap();
            let stderr = String::from_utf8_lossy(&t_err.join().unwrap()).into_owned();
            panic!("{desc} ran longer than {limit:?} ({st}); stderr:\n{stderr}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: t_out.join().unwrap(),
        stderr: t_err.join().unwrap(),
    }
}

/// Builds the simulator's C library once (nested `cargo build -p
/// aclrt-sim-capi`, the cdylib crate `sim/capi` that links `aclrt_sim` and
/// exports its C entry points) and returns the directory that holds
/// `libascendcl.so`.
pub fn sim_cdylib_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = run_with_limit(
            nested_cargo(&workspace_root()).args(["build", "-p", "aclrt-sim-capi", "--lib"]),
            Duration::from_secs(600),
        );
        assert!(
            out.status.success(),
            "building the simulator cdylib failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dir = nested_target_dir().join("debug");
        assert!(
            dir.join("libascendcl.so").is_file(),
            "no libascendcl.so in {}",
            dir.display()
        );
        dir
    })
}

/// The C compiler: `CC`, else `cc`.
pub fn c_compiler() -> OsString {
    std::env::var_os("CC").unwrap_or_else(|| "cc".into())
}

/// The C++ compiler: `CXX`, else `g++`.
pub fn cxx_compiler() -> OsString {
    std::env::var_os("CXX").unwrap_or_else(|| "g++".into())
}

/// Text of an output's stdout and stderr for assertion messages.
pub fn show(out: &Output) -> String {
    format!(
        "status: {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
