//! The service loop of `examples/21_service_loop.rs` (issue 25) against the
//! same loop in raw C calls, on the simulator with a simulated kernel time,
//! side by side in one run.
//!
//! Both sides serve `BATCHES` batches round-robin over `STREAMS` streams
//! with two buffer slots per stream: the CPU fills a pinned staging buffer,
//! an async copy moves it to the device, a kernel (`KERNEL_TIME` of
//! simulated device time, then a copy of its input) writes a device buffer,
//! an async copy brings it back, and the CPU collects batch k−2N of a slot
//! just before queuing batch k there.
//! * safe: one `Context::scope` per block, `Scope::lanes` indexed with
//!   `j % STREAMS`, `Lane::park`, `Lane::launch_in` with a `KernelRef`, and
//!   two fences per batch (`InFlight::fence` after the staging copy and after
//!   the result copy); the staging buffer comes back at its event
//!   (`Fence::reuse`, `aclrtSynchronizeEvent`), the result in one of two
//!   ways, each a side of its own:
//!   - `safe`: at its event too (`Fence::reuse`), as the C loop does; a
//!     device fault is then returned by the scope's end (the C loop, which
//!     never synchronises a stream, never learns it);
//!   - `checked`: after a checked wait (`Fence::wait`, which synchronises
//!     the slot's stream — the runtime reports a device fault to stream
//!     synchronisations only — unless a checked wait of a later fence of
//!     that lane already did), so a faulted batch is known at collection;
//! * raw: `aclrtMemcpyAsync`, `aclrtKernelArgsInit`/`Append`/`Finalize`,
//!   `aclrtLaunchKernelWithConfig`, `aclrtMemcpyAsync`, and one event per
//!   slot (`aclrtRecordEvent` after the result copy, `aclrtSynchronizeEvent`
//!   before reusing the slot): what a C programmer writes.
//!
//! As in `interleaved.rs`, each round times one block of each side back to
//! back (the order rotates) and the figures are the medians of the
//! per-round ratios to the C loop, so a slow period of the VM slows every
//! side.
//!
//! `cargo bench --manifest-path benches/Cargo.toml --bench service_loop`
//! prints `key=value` lines and writes them to `$RESULTS/service_loop.txt`
//! when `RESULTS` is set (`benches/run_all.sh` does). With `--test` (the CI
//! smoke pass) it runs two short rounds and writes nothing.

use std::ffi::c_void;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use aclrt::kernel::{Count, In, Out};
use aclrt::{Acl, Fence, HostMode, make_guard, sys};

const WIDTH: usize = 1024;
const STREAMS: usize = 2;
const SLOTS: usize = 2 * STREAMS;
/// Simulated device time of one kernel.
const KERNEL_TIME: Duration = Duration::from_micros(200);

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

/// The input of batch `b`.
fn fill(buf: &mut [f32], b: usize) {
    for (i, v) in buf.iter_mut().enumerate() {
        *v = (b * 31 + i) as f32;
    }
}

/// The collected result of a batch: its first element (the CPU's share of
/// the work is the same on both sides: one pass over the buffer).
fn collect(buf: &[f32]) -> f32 {
    buf.iter().sum::<f32>() + buf[0]
}

fn main() {
    let test_mode = std::env::args().any(|a| a == "--test");
    let (rounds, batches) = if test_mode { (2, 8) } else { (41, 64) };
    aclrt::sim::register_kernel("bench_service_kernel", |block, _, args| {
        let (x, y, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)? as usize);
        if block == 0 {
            std::thread::sleep(KERNEL_TIME);
            let mut bytes = vec![0u8; n * 4];
            args.read(x, &mut bytes)?;
            args.write(y, &bytes)?;
        }
        Ok(())
    });
    let acl = Acl::init().expect("aclInit");
    let rt = acl.require::<HostMode>().expect("host run mode");
    let device = rt.device(0).expect("device 0");
    make_guard!(g);
    let ctx = device.create_context(g).expect("context");
    let binary = ctx
        .load_binary(&aclrt::sim::binary_image(&["bench_service_kernel"]))
        .expect("binary");
    // SAFETY: the kernel reads `In` and writes `Out`, `Count` elements each.
    let kernel = unsafe {
        binary
            .kernel_ref::<(In<f32>, Out<f32>, Count)>(c"bench_service_kernel")
            .expect("kernel")
    };
    let streams: Vec<_> = (0..STREAMS)
        .map(|_| ctx.create_stream().expect("stream"))
        .collect();
    let mut staging: Vec<_> = (0..SLOTS)
        .map(|_| ctx.alloc_host_zeroed::<f32>(WIDTH).expect("pinned"))
        .collect();
    let mut outs: Vec<_> = (0..SLOTS)
        .map(|_| ctx.alloc_host_zeroed::<f32>(WIDTH).expect("pinned"))
        .collect();
    let mut d_in: Vec<_> = (0..SLOTS)
        .map(|_| ctx.alloc::<f32>(WIDTH).expect("device"))
        .collect();
    let mut d_out: Vec<_> = (0..SLOTS)
        .map(|_| ctx.alloc::<f32>(WIDTH).expect("device"))
        .collect();

    // The raw handles of the same objects.
    let raw_streams: Vec<*mut c_void> = streams.iter().map(|s| s.as_raw()).collect();
    let func = kernel.as_raw();
    let mut events = [null_mut::<c_void>(); SLOTS];
    // SAFETY: a live context, made current for the event creation.
    ok(unsafe { sys::aclrtSetCurrentContext(ctx.as_raw()) });
    for ev in &mut events {
        // SAFETY: `ev` is a writable handle slot.
        ok(unsafe { sys::aclrtCreateEventWithFlag(ev, sys::ACL_EVENT_SYNC) });
    }
    let staging_ptrs: Vec<*mut f32> = staging.iter_mut().map(|b| b.as_mut_ptr()).collect();
    let out_ptrs: Vec<*mut f32> = outs.iter_mut().map(|b| b.as_mut_ptr()).collect();
    let d_in_ptrs: Vec<*mut c_void> = d_in
        .iter()
        .map(|b| b.as_device_ptr() as *mut c_void)
        .collect();
    let d_out_ptrs: Vec<*mut c_void> = d_out
        .iter()
        .map(|b| b.as_device_ptr() as *mut c_void)
        .collect();
    let bytes = WIDTH * 4;

    // One block of the safe loop: wall time in ns; the sum of the results.
    // `checked`: each result is collected with a checked wait
    // (`Fence::wait`, a stream synchronisation: it fails if the batch's work
    // faulted); otherwise with `Fence::reuse` (the event only, as the C loop
    // does; a fault is returned by the scope's end).
    let mut safe_block = |checked: bool| -> (f64, f32) {
        let t = Instant::now();
        let mut total = 0f32;
        ctx.scope(|s| {
            make_guard!(g);
            let lanes = s.lanes(&streams, g);
            struct Slot<St, Dv, Ot> {
                staging: St,
                d_in: Dv,
                d_out: Dv,
                out: Ot,
                pending: bool,
            }
            let mut slots: Vec<Option<Slot<Fence<_>, _, Fence<_>>>> = Vec::new();
            let buffers = staging
                .iter_mut()
                .zip(&mut d_in)
                .zip(&mut d_out)
                .zip(&mut outs);
            for (j, (((st, di), dout), o)) in buffers.enumerate() {
                let lane = &lanes[j % STREAMS];
                slots.push(Some(Slot {
                    staging: lane.park(st)?.fence()?,
                    d_in: lane.park(di)?,
                    d_out: lane.park(dout)?,
                    out: lane.park(o)?.fence()?,
                    pending: false,
                }));
            }
            for k in 0..batches + SLOTS {
                let j = k % SLOTS;
                let lane = &lanes[j % STREAMS];
                let slot = slots[j].take().expect("slot");
                let out = if checked {
                    slot.out.wait()?
                } else {
                    slot.out.reuse()?
                };
                if slot.pending {
                    total += collect(out);
                }
                if k >= batches {
                    continue;
                }
                let st = slot.staging.reuse()?;
                fill(st, k);
                let st = lane.park(st)?;
                let d_in = lane.copy(&st, slot.d_in)?;
                let (_, d_out, _) =
                    lane.launch_in(&binary, kernel, 1, (&d_in, slot.d_out, WIDTH))?;
                let out = lane.copy(&d_out, lane.park(out)?)?.fence()?;
                slots[j] = Some(Slot {
                    staging: st.fence()?,
                    d_in,
                    d_out,
                    out,
                    pending: true,
                });
            }
            Ok(())
        })
        .expect("safe service loop");
        (t.elapsed().as_nanos() as f64, total)
    };

    let raw_block = || -> (f64, f32) {
        // The minimal correct raw code: the context is made current once.
        // SAFETY: a live context.
        ok(unsafe { sys::aclrtSetCurrentContext(ctx.as_raw()) });
        let t = Instant::now();
        let mut total = 0f32;
        let mut pending = [false; SLOTS];
        for k in 0..batches + SLOTS {
            let j = k % SLOTS;
            let stream = raw_streams[j % STREAMS];
            if pending[j] {
                // SAFETY: a live event recorded after the slot's last use;
                // once it completed, the device no longer touches the
                // slot's buffers, so the CPU may read and write them.
                unsafe {
                    ok(sys::aclrtSynchronizeEvent(events[j]));
                    total += collect(std::slice::from_raw_parts(out_ptrs[j], WIDTH));
                }
                pending[j] = false;
            }
            if k >= batches {
                continue;
            }
            // SAFETY: the slot is idle (above); live allocations of `bytes`
            // bytes; a live stream of the current context; the kernel reads
            // `d_in` and writes `d_out`, `WIDTH` elements each; the event
            // is synchronised before the slot's buffers are touched again.
            unsafe {
                fill(std::slice::from_raw_parts_mut(staging_ptrs[j], WIDTH), k);
                ok(sys::aclrtMemcpyAsync(
                    d_in_ptrs[j],
                    bytes,
                    staging_ptrs[j] as *const c_void,
                    bytes,
                    sys::ACL_MEMCPY_HOST_TO_DEVICE,
                    stream,
                ));
                let mut args: sys::aclrtArgsHandle = null_mut();
                ok(sys::aclrtKernelArgsInit(func, &mut args));
                let mut param: sys::aclrtParamHandle = null_mut();
                let (mut x, mut y, mut n) =
                    (d_in_ptrs[j] as u64, d_out_ptrs[j] as u64, WIDTH as u64);
                for v in [&mut x, &mut y, &mut n] {
                    ok(sys::aclrtKernelArgsAppend(
                        args,
                        (v as *mut u64).cast::<c_void>(),
                        8,
                        &mut param,
                    ));
                }
                ok(sys::aclrtKernelArgsFinalize(args));
                ok(sys::aclrtLaunchKernelWithConfig(
                    func,
                    1,
                    stream,
                    null_mut(),
                    args,
                    null_mut(),
                ));
                ok(sys::aclrtMemcpyAsync(
                    out_ptrs[j].cast::<c_void>(),
                    bytes,
                    d_out_ptrs[j] as *const c_void,
                    bytes,
                    sys::ACL_MEMCPY_DEVICE_TO_HOST,
                    stream,
                ));
                ok(sys::aclrtRecordEvent(events[j], stream));
            }
            pending[j] = true;
        }
        (t.elapsed().as_nanos() as f64, total)
    };

    // Warm-up: one round, not counted; all sides compute the same results.
    let (_, safe_total) = safe_block(false);
    let (_, checked_total) = safe_block(true);
    let (_, raw_total) = raw_block();
    assert_eq!(safe_total, raw_total, "both loops collect the same results");
    assert_eq!(
        checked_total, raw_total,
        "both loops collect the same results"
    );
    let (mut safe, mut raw, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
    let (mut checked, mut checked_ratio) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        // The three blocks of a round in a rotating order.
        let mut times = [0f64; 3];
        for i in 0..3 {
            let side = (r + i) % 3;
            times[side] = match side {
                0 => safe_block(false).0,
                1 => safe_block(true).0,
                _ => raw_block().0,
            };
        }
        let [s, c, w] = times;
        safe.push(s / batches as f64);
        checked.push(c / batches as f64);
        raw.push(w / batches as f64);
        ratio.push(s / w);
        checked_ratio.push(c / w);
    }
    let lines = [
        format!("rounds={rounds}"),
        format!("batches={batches}"),
        format!("streams={STREAMS}"),
        format!("kernel_us={}", KERNEL_TIME.as_micros()),
        format!("service_ratio_median={:.3}", median(&mut ratio)),
        format!(
            "service_ratio_range={:.3}-{:.3}",
            ratio[0],
            ratio[ratio.len() - 1]
        ),
        format!(
            "service_checked_ratio_median={:.3}",
            median(&mut checked_ratio)
        ),
        format!(
            "service_checked_ratio_range={:.3}-{:.3}",
            checked_ratio[0],
            checked_ratio[checked_ratio.len() - 1]
        ),
        format!("service_safe_median_ns_per_batch={:.0}", median(&mut safe)),
        format!(
            "service_checked_median_ns_per_batch={:.0}",
            median(&mut checked)
        ),
        format!("service_raw_median_ns_per_batch={:.0}", median(&mut raw)),
    ];
    for l in &lines {
        println!("{l}");
    }
    for ev in events {
        // SAFETY: a live event, synchronised (every slot was collected).
        ok(unsafe { sys::aclrtDestroyEvent(ev) });
    }
    drop((staging, outs, d_in, d_out));
    for s in streams {
        s.destroy().expect("destroy stream");
    }
    binary.unload().expect("unload");
    ctx.destroy().expect("destroy context");
    drop(device);
    acl.finalize().expect("aclFinalize");
    let audit = aclrt::sim::audit();
    assert!(
        audit.is_clean(),
        "the benchmark left the audit dirty: {audit:#?}"
    );
    if !test_mode {
        if let Ok(dir) = std::env::var("RESULTS") {
            let path = std::path::Path::new(&dir).join("service_loop.txt");
            std::fs::write(&path, lines.join("\n") + "\n").expect("write service_loop.txt");
        }
    }
}
