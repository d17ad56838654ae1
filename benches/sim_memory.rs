//! Memory per live simulator resource (issue 15, "the cost of scale"),
//! through raw `aclrt::sys` calls: the growth of the process's resident set
//! (RSS, from `/proc/self/statm`) while N resources of one kind are live,
//! reported per 1,000.
//!
//! * `stream`: `aclrtCreateStream` (idle streams);
//! * `stream+task`: a stream that has executed one 4-byte memset (with a
//!   thread per stream this was a worker thread each; with the pool it is
//!   not);
//! * `event`: `aclrtCreateEvent` + `aclrtRecordEvent` on one stream;
//! * `malloc32`: `aclrtMalloc` of 32 bytes (the simulated device memory,
//!   64 bytes after rounding, is part of the figure).
//!
//! Not a criterion bench (it measures bytes, not time):
//! `cargo bench --manifest-path benches/Cargo.toml --bench sim_memory`
//! prints `kind=N,bytes_per_1000` lines, and writes them to
//! `$RESULTS/memory.txt` when `RESULTS` is set (`benches/run_all.sh` does).
//! With `--test` (the CI smoke pass) it runs N = 100 once and writes
//! nothing. RSS is page-granular and includes allocator slack, so the
//! figures are approximate (a few KiB per 1,000).

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use aclrt::sys;

fn ok(code: sys::aclError, what: &str) {
    assert_eq!(code, 0, "{what} failed with {code}");
}

/// Resident set size of this process in bytes (Linux); 0 elsewhere.
fn rss() -> u64 {
    let Ok(statm) = std::fs::read_to_string("/proc/self/statm") else {
        return 0;
    };
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

/// RSS growth per 1,000 while `n` resources made by `make` are live;
/// `release` frees them afterwards.
fn per_thousand<T>(n: usize, mut make: impl FnMut() -> T, release: impl FnMut(T)) -> f64 {
    let before = rss();
    let live: Vec<T> = (0..n).map(|_| make()).collect();
    let after = rss();
    live.into_iter().for_each(release);
    (after.saturating_sub(before)) as f64 * 1000.0 / n as f64
}

fn main() {
    let test_mode = std::env::args().any(|a| a == "--test");
    let (n_streams, n_events, n_allocs) = if test_mode {
        (100, 100, 100)
    } else {
        // The simulator allows 1024 streams and 65536 events per device.
        (1000, 50_000, 100_000)
    };
    let _sim = aclrt::sim::exclusive();
    // SAFETY: a null config path is allowed; device 0 exists.
    unsafe {
        ok(sys::aclInit(null()), "aclInit");
        ok(sys::aclrtSetDevice(0), "aclrtSetDevice");
    }
    let mut target: *mut c_void = null_mut();
    // SAFETY: valid out pointer.
    ok(
        unsafe { sys::aclrtMalloc(&mut target, 64, sys::ACL_MEM_MALLOC_HUGE_FIRST) },
        "aclrtMalloc",
    );
    let create_stream = || {
        let mut s = null_mut();
        // SAFETY: valid out pointer; device 0's default context is current.
        ok(
            unsafe { sys::aclrtCreateStream(&mut s) },
            "aclrtCreateStream",
        );
        s
    };
    let destroy_stream = |s: sys::aclrtStream| {
        // SAFETY: a live stream of this run, destroyed once.
        ok(unsafe { sys::aclrtDestroyStream(s) }, "aclrtDestroyStream")
    };
    // Warm up the allocator and the pool once.
    per_thousand(16, create_stream, destroy_stream);

    let mut lines = Vec::new();
    let stream = per_thousand(n_streams, create_stream, destroy_stream);
    lines.push(format!("stream={n_streams},{stream:.0}"));

    let stream_task = per_thousand(
        n_streams,
        || {
            let s = create_stream();
            // SAFETY: `target` is a live 64-byte block, `s` a live stream.
            unsafe {
                ok(
                    sys::aclrtMemsetAsync(target, 4, 1, 4, s),
                    "aclrtMemsetAsync",
                );
                ok(sys::aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
            }
            s
        },
        destroy_stream,
    );
    lines.push(format!("stream+task={n_streams},{stream_task:.0}"));

    let s = create_stream();
    let event = per_thousand(
        n_events,
        || {
            let mut e = null_mut();
            // SAFETY: valid out pointer; `s` is a live stream.
            unsafe {
                ok(sys::aclrtCreateEvent(&mut e), "aclrtCreateEvent");
                ok(sys::aclrtRecordEvent(e, s), "aclrtRecordEvent");
            }
            e
        },
        |e| {
            // SAFETY: a live event, destroyed once.
            ok(unsafe { sys::aclrtDestroyEvent(e) }, "aclrtDestroyEvent")
        },
    );
    lines.push(format!("event={n_events},{event:.0}"));
    // SAFETY: a live stream (its records all executed or are idle).
    unsafe {
        ok(sys::aclrtSynchronizeStream(s), "aclrtSynchronizeStream");
    }
    destroy_stream(s);

    let malloc = per_thousand(
        n_allocs,
        || {
            let mut p = null_mut();
            // SAFETY: valid out pointer.
            ok(
                unsafe { sys::aclrtMalloc(&mut p, 32, sys::ACL_MEM_MALLOC_HUGE_FIRST) },
                "aclrtMalloc",
            );
            p
        },
        |p| {
            // SAFETY: a live block, freed once.
            ok(unsafe { sys::aclrtFree(p) }, "aclrtFree")
        },
    );
    lines.push(format!("malloc32={n_allocs},{malloc:.0}"));

    // SAFETY: every resource above was released; `target` is live.
    unsafe {
        ok(sys::aclrtFree(target), "aclrtFree");
        ok(sys::aclrtResetDevice(0), "aclrtResetDevice");
        ok(sys::aclFinalize(), "aclFinalize");
    }
    let audit = aclrt::sim::audit();
    assert!(audit.is_clean(), "left the audit dirty: {audit:#?}");
    for l in &lines {
        println!("{l}");
    }
    if !test_mode {
        if let Ok(dir) = std::env::var("RESULTS") {
            let path = std::path::Path::new(&dir).join("memory.txt");
            std::fs::write(&path, lines.join("\n") + "\n").expect("write memory.txt");
        }
    }
}
