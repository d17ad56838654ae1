//! The zero-cost async row measured so that both sides see the same machine:
//! a whole safe `scope` (lane, one async 4 KiB copy, its wait, the scope's
//! end) against `aclrtMemcpyAsync` + `aclrtSynchronizeStream`, in blocks that
//! alternate between the two sides.
//!
//! Why not only criterion (`overhead`): on the 2-core VM of `BENCHMARKS.md`
//! the simulator's round trip has a slow mode (about 1.5 µs instead of
//! 0.6 µs) that can last a whole criterion measurement, and criterion
//! measures one side after the other, so one side alone may land in it
//! (ratios of 0.34 and 3.0 on the same commit). Here each round times one
//! block of each side back to back (which side goes first alternates), and
//! the figure is the median over rounds of the per-round ratio: a slow
//! period then slows both blocks of a round, not one side.
//!
//! `cargo bench --manifest-path benches/Cargo.toml --bench interleaved`
//! prints `key=value` lines and writes them to `$RESULTS/interleaved.txt`
//! when `RESULTS` is set (`benches/run_all.sh` does). With `--test` (the CI
//! smoke pass) it runs two short rounds and writes nothing.

use std::ffi::c_void;
use std::time::Instant;

use aclrt::{Acl, HostMode, make_guard, sys};

const N: usize = 4096;

fn ok(code: sys::aclError) {
    assert_eq!(code, 0, "ACL call failed: {code}");
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    let test_mode = std::env::args().any(|a| a == "--test");
    let (rounds, block) = if test_mode { (2, 10) } else { (60, 2000) };
    let acl = Acl::init().expect("aclInit");
    let rt = acl.require::<HostMode>().expect("host run mode");
    let device = rt.device(0).expect("device 0");
    make_guard!(g);
    let ctx = device.create_context(g).expect("context");
    let stream = ctx.create_stream().expect("stream");
    let host = ctx.alloc_host_from(&[7u8; N]).expect("pinned");
    let mut dev = ctx.alloc::<u8>(N).expect("device");
    let raw_stream = stream.as_raw();
    let host_ptr = host.as_ptr() as *const c_void;
    let dev_ptr = dev.as_device_ptr() as *mut c_void;

    // One block of each side, in ns per round trip.
    let mut safe_block = || {
        let t = Instant::now();
        for _ in 0..block {
            ctx.scope(|s| {
                make_guard!(l);
                let lane = s.lane(&stream, l);
                lane.copy(&host, &mut dev)?.wait()?;
                Ok(())
            })
            .expect("scope");
        }
        t.elapsed().as_nanos() as f64 / block as f64
    };
    let raw_block = || {
        // The minimal correct raw code: the context is made current before
        // the block (the safe side keeps it current through its cache).
        // SAFETY: a live context.
        ok(unsafe { sys::aclrtSetCurrentContext(ctx.as_raw()) });
        let t = Instant::now();
        for _ in 0..block {
            // SAFETY: live allocations of N bytes, a live stream of the
            // current context; synchronised before the next iteration.
            unsafe {
                ok(sys::aclrtMemcpyAsync(
                    dev_ptr,
                    N,
                    host_ptr,
                    N,
                    sys::ACL_MEMCPY_HOST_TO_DEVICE,
                    raw_stream,
                ));
                ok(sys::aclrtSynchronizeStream(raw_stream));
            }
        }
        t.elapsed().as_nanos() as f64 / block as f64
    };
    // Warm-up: one round, not counted.
    safe_block();
    raw_block();
    let (mut safe, mut raw, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    for r in 0..rounds {
        let (s, w) = if r % 2 == 0 {
            let s = safe_block();
            (s, raw_block())
        } else {
            let w = raw_block();
            (safe_block(), w)
        };
        safe.push(s);
        raw.push(w);
        ratio.push(s / w);
    }
    let (lo_s, hi_s) = (
        safe.iter().copied().fold(f64::INFINITY, f64::min),
        safe.iter().copied().fold(0.0, f64::max),
    );
    let (lo_r, hi_r) = (
        raw.iter().copied().fold(f64::INFINITY, f64::min),
        raw.iter().copied().fold(0.0, f64::max),
    );
    let lines = [
        format!("rounds={rounds}"),
        format!("block={block}"),
        format!("async_ratio_median={:.3}", median(&mut ratio)),
        format!("async_safe_median_ns={:.0}", median(&mut safe)),
        format!("async_raw_median_ns={:.0}", median(&mut raw)),
        format!("async_safe_range_ns={lo_s:.0}-{hi_s:.0}"),
        format!("async_raw_range_ns={lo_r:.0}-{hi_r:.0}"),
    ];
    for l in &lines {
        println!("{l}");
    }
    drop((host, dev));
    stream.destroy().expect("destroy stream");
    ctx.destroy().expect("destroy context");
    drop(device);
    acl.finalize().expect("aclFinalize");
    if !test_mode {
        if let Ok(dir) = std::env::var("RESULTS") {
            let path = std::path::Path::new(&dir).join("interleaved.txt");
            std::fs::write(&path, lines.join("\n") + "\n").expect("write interleaved.txt");
        }
    }
}
