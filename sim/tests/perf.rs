//! Rough performance probes of the design targets (the criterion benches
//! live elsewhere). Ignored by default; run with
//! `cargo test -p aclrt-sim --release --test perf -- --ignored --nocapture`.

mod common;
use common::*;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[test]
#[ignore = "performance probe; run in release mode"]
fn perf_probes() {
    let _g = sim::exclusive();
    init_device0();
    let n = 64 << 20;

    // 1. sync 64 MiB H2D copy vs copy_from_slice.
    let host = vec![7u8; n];
    let mut plain = vec![0u8; n];
    let dev = malloc(n);
    h2d(dev, &host);
    plain.copy_from_slice(&host);
    let mut t_plain = Vec::new();
    let mut t_sim = Vec::new();
    for _ in 0..15 {
        let t0 = Instant::now();
        std::hint::black_box(&mut plain).copy_from_slice(std::hint::black_box(&host));
        std::hint::black_box(&plain);
        t_plain.push(t0.elapsed());
        let t0 = Instant::now();
        h2d(dev, std::hint::black_box(&host));
        t_sim.push(t0.elapsed());
    }
    let (p, s) = (median(t_plain), median(t_sim));
    println!(
        "sync 64 MiB: copy_from_slice {p:?}, aclrtMemcpy {s:?} -> ratio {:.2} (target >= 0.9)",
        p.as_secs_f64() / s.as_secs_f64()
    );

    // 2. async enqueue rate on one stream.
    let st = create_stream();
    let small = malloc(64);
    let tasks = 200_000;
    let t0 = Instant::now();
    for i in 0..tasks {
        ok!(aclrtMemsetAsync(small, 64, i, 64, st));
    }
    let enq = t0.elapsed();
    ok!(aclrtSynchronizeStream(st));
    let all = t0.elapsed();
    println!(
        "enqueue: {:.2} M tasks/s (target >= 1); with execution {:.2} M tasks/s",
        tasks as f64 / enq.as_secs_f64() / 1e6,
        tasks as f64 / all.as_secs_f64() / 1e6
    );

    // 3. record -> synchronize round trip on an idle stream.
    let e = create_event();
    let mut rtt = Vec::new();
    for _ in 0..10_000 {
        let t0 = Instant::now();
        ok!(aclrtRecordEvent(e, st));
        ok!(aclrtSynchronizeEvent(e));
        rtt.push(t0.elapsed());
    }
    println!(
        "record+sync round trip: median {:?} (target <= 10 us)",
        median(rtt)
    );

    // 4. two streams copying 64 MiB each, concurrently vs serially.
    let bufs: Vec<*mut c_void> = (0..4).map(|_| malloc(n)).collect();
    for &b in &bufs {
        ok!(aclrtMemset(b, n, 1, n));
    }
    let st2 = create_stream();
    let run = |a: aclrtStream, b: aclrtStream| {
        let t0 = Instant::now();
        ok!(aclrtMemcpyAsync(
            bufs[1],
            n,
            bufs[0],
            n,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            a
        ));
        ok!(aclrtMemcpyAsync(
            bufs[3],
            n,
            bufs[2],
            n,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
            b
        ));
        ok!(aclrtSynchronizeStream(a));
        ok!(aclrtSynchronizeStream(b));
        t0.elapsed()
    };
    // Baseline: what two plain threads achieve on this machine.
    let (mut a0, a1, mut b0, b1) = (vec![0u8; n], vec![1u8; n], vec![0u8; n], vec![1u8; n]);
    let mut base_serial = Vec::new();
    let mut base_par = Vec::new();
    for _ in 0..9 {
        let t0 = Instant::now();
        a0.copy_from_slice(&a1);
        b0.copy_from_slice(&b1);
        std::hint::black_box((&a0, &b0));
        base_serial.push(t0.elapsed());
        let t0 = Instant::now();
        std::thread::scope(|sc| {
            sc.spawn(|| a0.copy_from_slice(&a1));
            sc.spawn(|| b0.copy_from_slice(&b1));
        });
        std::hint::black_box((&a0, &b0));
        base_par.push(t0.elapsed());
    }
    let (bs, bp) = (median(base_serial), median(base_par));
    println!(
        "baseline two plain threads: serial {bs:?}, parallel {bp:?} -> {:.2}",
        bp.as_secs_f64() / bs.as_secs_f64()
    );
    let serial = median((0..9).map(|_| run(st, st)).collect());
    let parallel = median((0..9).map(|_| run(st, st2)).collect());
    println!(
        "two 64 MiB copies: serial {serial:?}, parallel {parallel:?} -> {:.2} (target <= 0.6)",
        parallel.as_secs_f64() / serial.as_secs_f64()
    );

    for b in bufs {
        ok!(aclrtFree(b));
    }
    ok!(aclrtDestroyEvent(e));
    ok!(aclrtFree(small));
    ok!(aclrtFree(dev));
    ok!(aclrtDestroyStream(st));
    ok!(aclrtDestroyStream(st2));
    teardown_device0();
    sim::audit().assert_clean();
}
