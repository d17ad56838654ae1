//! The fuzzer's smoke pass inside `cargo test --workspace`: fixed seeds, a
//! few dozen sequences in both run modes (a few seconds). A finding fails
//! the test with the fuzzer's report (signature and minimised reproducer).
//! CI runs a longer bounded pass (`.ci/run`, stage "fuzz smoke").

use std::process::Command;

fn fuzz(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_aclrt-fuzz"))
        .args(args)
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
    let dir = std::env::temp_dir().join(format!("aclrt-fuzz-smoke-{}", std::process::id()));
    let dir = dir.to_string_lossy().into_owned();
    for seed in ["11", "12"] {
        let (ok, text) = fuzz(&[
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
            &dir,
        ]);
        assert!(ok, "aclrt-fuzz found something:\n{text}");
        assert!(
            text.contains("16 sequences (8 host, 8 device), 800 calls"),
            "{text}"
        );
    }
}

#[test]
fn a_reproducer_replays() {
    // A small hand-written sequence in the reproducer format.
    let path = std::env::temp_dir().join(format!("aclrt-fuzz-replay-{}.txt", std::process::id()));
    std::fs::write(
        &path,
        "# a comment\naclInit 0 0 0 0 0 0 0 0\naclrtSetDevice 0 0 0 0 0 0 0 0\n\
         aclrtMalloc 1 4096 0 0 0 0 0 0\naclrtMemset 3 4096 0 0 0 0 0 0\n",
    )
    .unwrap();
    for mode in ["host", "device"] {
        let (ok, text) = fuzz(&["replay", path.to_str().unwrap(), "--mode", mode]);
        assert!(ok, "{text}");
        assert!(text.contains("ok: 4 calls"), "{text}");
    }
}

#[test]
fn every_past_finding_replays_clean() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mode = if name.ends_with("-device.txt") {
            "device"
        } else {
            "host"
        };
        let (ok, text) = fuzz(&["replay", path.to_str().unwrap(), "--mode", mode]);
        assert!(ok, "{name}: {text}");
        n += 1;
    }
    assert!(n >= 3, "the regressions are missing");
}
