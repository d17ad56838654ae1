//! The fuzzer's smoke pass inside `cargo test --workspace`: fixed seeds, a
//! few dozen sequences in both run modes (a few seconds). A finding fails
//! the test with the fuzzer's report (signature and minimised reproducer).
//! CI runs a longer bounded pass (`.ci/run`, stage "fuzz smoke").
//!
//! Every run here gets a private, empty `TMPDIR` (under the target's tmp
//! dir) and checks that the fuzzer left nothing in it: the parent, each
//! child process (one per sequence) and a child killed mid-sequence.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A private directory for one test, removed when the test passes (kept
/// when it fails: it then holds what the failure names, e.g. reproducers).
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("aclrt-fuzz-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("tmp")).unwrap();
        Scratch(dir)
    }

    /// The `TMPDIR` the fuzzer runs with (empty at first).
    fn tmp(&self) -> PathBuf {
        self.0.join("tmp")
    }

    /// Fails if the fuzzer left anything in its `TMPDIR`.
    fn assert_tmp_is_empty(&self) {
        let left: Vec<String> = std::fs::read_dir(self.tmp())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            left.is_empty(),
            "aclrt-fuzz left files in its TMPDIR {}: {left:?}",
            self.tmp().display()
        );
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn fuzz(scratch: &Scratch, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_aclrt-fuzz"))
        .args(args)
        .env("TMPDIR", scratch.tmp())
        .output()
        .expect("run aclrt-fuzz");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn smoke_pass_with_fixed_seeds_finds_nothing() {
    let scratch = Scratch::new("smoke");
    let out = scratch.0.join("findings");
    let out = out.to_str().unwrap();
    for seed in ["11", "12"] {
        let (ok, text) = fuzz(
            &scratch,
            &[
                "run",
                "--seed",
                seed,
                "--sequences",
                "16",
                "--len",
                "50",
                "--mode",
                "both",
                "--quiet",
                "--out",
                out,
            ],
        );
        assert!(ok, "aclrt-fuzz found something:\n{text}");
        assert!(
            text.contains("16 sequences (8 host, 8 device), 800 calls"),
            "{text}"
        );
    }
    scratch.assert_tmp_is_empty();
}

#[test]
fn a_reproducer_replays() {
    let scratch = Scratch::new("replay");
    // A small hand-written sequence in the reproducer format.
    let path = scratch.0.join("replay.txt");
    std::fs::write(
        &path,
        "# a comment\naclInit 0 0 0 0 0 0 0 0\naclrtSetDevice 0 0 0 0 0 0 0 0\n\
         aclrtMalloc 1 4096 0 0 0 0 0 0\naclrtMemset 3 4096 0 0 0 0 0 0\n",
    )
    .unwrap();
    for mode in ["host", "device"] {
        let (ok, text) = fuzz(
            &scratch,
            &["replay", path.to_str().unwrap(), "--mode", mode],
        );
        assert!(ok, "{text}");
        assert!(text.contains("ok: 4 calls"), "{text}");
    }
    scratch.assert_tmp_is_empty();
}

/// A child killed in the middle of its sequence (as the parent kills one
/// past its time limit, or the kernel kills one whose parent died) runs no
/// clean-up code at all: it must have left nothing behind anyway.
#[test]
fn a_child_killed_mid_sequence_leaves_no_file() {
    let scratch = Scratch::new("killed");
    // A long sequence whose first call is aclInit: the child has set up its
    // pools (the binary image among them) before it runs call 0.
    let (ok, seq) = fuzz(&scratch, &["print", "5", "0", "2000"]);
    assert!(ok && seq.starts_with("aclInit "), "{seq}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_aclrt-fuzz"))
        .arg("child")
        .env("TMPDIR", scratch.tmp())
        .env("ACLRT_FUZZ_VERBOSE", "1")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn aclrt-fuzz child");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(seq.as_bytes())
        .unwrap();
    // Wait until the first call has run (stderr: "call 0: aclInit -> ..."),
    // then kill: no destructor, no exit handler runs.
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let mut seen = Vec::new();
    while err.read_line(&mut line).unwrap() > 0 && !line.starts_with("call 0:") {
        seen.push(std::mem::take(&mut line));
    }
    assert!(
        line.starts_with("call 0:"),
        "the child ran no call: {seen:?}"
    );
    child.kill().unwrap();
    let status = child.wait().unwrap();
    {
        use std::os::unix::process::ExitStatusExt;
        // Killed (signal 9), or it had already finished the sequence.
        assert!(
            status.signal() == Some(9) || status.code().is_some(),
            "{status:?}"
        );
    }
    scratch.assert_tmp_is_empty();
}

#[test]
fn every_past_finding_replays_clean() {
    let scratch = Scratch::new("regressions");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mode = if name.ends_with("-device.txt") {
            "device"
        } else {
            "host"
        };
        let (ok, text) = fuzz(
            &scratch,
            &["replay", path.to_str().unwrap(), "--mode", mode],
        );
        assert!(ok, "{name}: {text}");
        n += 1;
    }
    assert!(n >= 3, "the regressions are missing");
    scratch.assert_tmp_is_empty();
}
