//! A double-buffered compute pipeline: copy-in, kernel, copy-out on three
//! streams, with two device slots for the inputs and two for the results,
//! so that the copy-in of batch k+1 runs while batch k is being computed.
//!
//! Per batch `k` (slot `s = k % 2`):
//!
//! * stream "copy-in": takes input slot `s` back from "compute" (it held
//!   batch k-2), then copies batch `k` into it (host → device) and hands it
//!   to "compute" (`Lane::signal` / `Lane::wait_for`);
//! * stream "compute": takes output slot `s` back from "copy-out", runs the
//!   kernel `scale_add` (`y = a·x + b`) from input slot `s` into output slot
//!   `s`, hands the input slot back to "copy-in" and the output to
//!   "copy-out";
//! * stream "copy-out": copies output slot `s` to the host (device → host)
//!   and hands the slot back to "compute".
//!
//! A slot is handed back as a [`Signal`](aclrt::Signal) that the next user
//! waits for only when it needs the slot again, two batches later: queuing
//! the wait at once would make "copy-in" wait for the kernel of batch k
//! before copying batch k+1, and nothing would overlap. The borrow checker
//! sees to the rest: a slot in flight on one stream cannot be touched on
//! another before it is handed over.
//!
//! On the simulator each kernel stands for 4 ms of device code and the
//! copy-in stream is slowed down by a stream delay, so the overlap is long
//! enough to see: `main` records the
//! simulator's trace, draws it (`[OUT.svg]`, default
//! `target/compute_pipeline.svg`; `docs/compute_pipeline.svg` is this
//! picture) and checks from the trace that the copy-in of batch k+1
//! overlapped the kernel of batch k. Both run modes: on the device
//! (ACL_DEVICE) the "host" buffers are device memory too and the copies are
//! device-to-device.
//!
//! `cargo run --example 19_compute_pipeline [-- OUT.svg]` and
//! `ACLRT_SIM_RUN_MODE=device cargo run --example 19_compute_pipeline`.

use std::ffi::c_void;
use std::time::Duration;

use aclrt::kernel::{Count, In, LaunchConfig, Out, Scalar};
use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

/// Batches through the pipeline.
pub const BATCHES: usize = 8;
/// `f32` elements per batch (256 KiB).
pub const BATCH_LEN: usize = 64 * 1024;
/// Blocks per kernel launch.
const BLOCKS: u32 = 4;
/// `y = A·x + B`.
const A: f32 = 2.0;
const B: f32 = 0.5;

aclrt::sim_only! {
    /// The device code of `scale_add` on the simulator: block `k` of `nb`
    /// computes `y[i] = a·x[i] + b` on its contiguous share of `0..n`, reading
    /// and writing it in one checked access each.
    ///
    /// The simulator runs a kernel at the speed of the CPU, far faster than the
    /// copies' share of a real pipeline; to stand for device code that takes
    /// `kernel_time` (so that the picture has something to overlap), each of
    /// the blocks, which the simulator runs one after the other, also sleeps
    /// its share of it.
    fn register_device_code(kernel_time: Duration) {
        use aclrt::sim::KernelError;
        aclrt::sim::register_kernel("scale_add", move |block, blocks, args| {
            std::thread::sleep(kernel_time / blocks);
            let (x, y, n) = (args.u64(0)?, args.u64(1)?, args.u64(4)? as usize);
            let scalar = |i| -> Result<f32, KernelError> {
                let b: [u8; 4] = args
                    .bytes(i)?
                    .try_into()
                    .map_err(|_| KernelError::new(format!("argument {i} is not a 4-byte scalar")))?;
                Ok(f32::from_le_bytes(b))
            };
            let (a, b) = (scalar(2)?, scalar(3)?);
            let (blocks, block) = (blocks as usize, block as usize);
            let (start, end) = (n * block / blocks, n * (block + 1) / blocks);
            let mut bytes = vec![0u8; 4 * (end - start)];
            args.read(x + 4 * start as u64, &mut bytes)?;
            for v in bytes.chunks_exact_mut(4) {
                let r = a * f32::from_le_bytes([v[0], v[1], v[2], v[3]]) + b;
                v.copy_from_slice(&r.to_le_bytes());
            }
            args.write(y + 4 * start as u64, &bytes)
        });
    }
}

aclrt::sim_only! {
    /// The binary holding `scale_add`.
    fn device_binary(kernel_time: Duration) -> Vec<u8> {
        register_device_code(kernel_time);
        aclrt::sim::binary_image(&["scale_add"])
    }
}

aclrt::not_sim! {
    fn device_binary(_kernel_time: Duration) -> Vec<u8> {
        // With real hardware: an AI Core object built by the Ascend C toolchain.
        std::fs::read(std::env::var("SCALE_ADD_BIN").expect("set SCALE_ADD_BIN to the kernel object"))
            .expect("reading the kernel object")
    }
}

/// Input `k` of the pipeline, `len` values.
fn batch(k: usize, len: usize) -> Vec<f32> {
    (0..len)
        .map(|i| (k * len + i) as f32 * 0.125 - 300.0)
        .collect()
}

/// Runs the pipeline on batches of `len` values; on the simulator each
/// kernel takes `kernel_time` and each task of copy-in is delayed by a
/// quarter of it. Checks the results against the CPU's. Returns the
/// `aclrtStream` handles of copy-in, compute and copy-out.
fn pipeline<M: RunMode>(
    rt: Runtime<'_, M>,
    kernel_time: Duration,
    len: usize,
) -> aclrt::Result<[*mut c_void; 3]> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let copy_in = ctx.create_stream()?;
    let compute = ctx.create_stream()?;
    let copy_out = ctx.create_stream()?;
    // Copy-in starts batch k+1 a little after kernel k-1 has freed its slot,
    // so well inside kernel k (without the delay the copy could slip in
    // between the two kernels, and the overlap would be down to chance).
    aclrt::sim_only! { aclrt::sim::set_stream_delay(copy_in.as_raw(), kernel_time / 4); }

    let binary = ctx.load_binary(&device_binary(kernel_time))?;
    // SAFETY: `scale_add` reads x and writes y, each at indices below n, and
    // nothing else (see `register_device_code`).
    let scale_add = unsafe {
        binary.kernel::<(In<f32>, Out<f32>, Scalar<f32>, Scalar<f32>, Count)>(c"scale_add")?
    };

    let mut inputs = Vec::with_capacity(BATCHES);
    let mut outputs = Vec::with_capacity(BATCHES);
    for k in 0..BATCHES {
        inputs.push(ctx.alloc_host_from(&batch(k, len))?); // aclrtMallocHost
        outputs.push(ctx.alloc_host_from(&vec![f32::NAN; len])?);
    }
    // The two slots of each side (aclrtMalloc).
    let mut in_slots = [ctx.alloc::<f32>(len)?, ctx.alloc::<f32>(len)?];
    let mut out_slots = [ctx.alloc::<f32>(len)?, ctx.alloc::<f32>(len)?];

    ctx.scope(|s| {
        make_guard!(gi);
        make_guard!(gc);
        make_guard!(go);
        let up = s.lane(&copy_in, gi);
        let work = s.lane(&compute, gc);
        let down = s.lane(&copy_out, go);
        // First use of each slot: the buffer itself; later: the signal that
        // hands it back, waited for only when the slot is needed again.
        let mut fresh_in = in_slots.iter_mut();
        let mut fresh_out = out_slots.iter_mut();
        let mut in_back = [None, None];
        let mut out_back = [None, None];
        let mut results = Vec::with_capacity(BATCHES);
        for (k, (input, output)) in inputs.iter().zip(outputs.iter_mut()).enumerate() {
            let slot = k % 2;
            let landed = match in_back[slot].take() {
                Some(back) => up.copy(input, up.wait_for(back)?)?,
                None => up.copy(input, fresh_in.next().expect("two input slots"))?,
            };
            let x = work.wait_for(up.signal(landed)?)?; // copy-in -> compute
            let cfg = LaunchConfig::blocks(BLOCKS);
            let y = match out_back[slot].take() {
                Some(back) => {
                    let y = work.wait_for(back)?; // copy-out -> compute
                    work.launch(&scale_add, cfg, (&x, y, A, B, len))?.1
                }
                None => {
                    let y = fresh_out.next().expect("two output slots");
                    work.launch(&scale_add, cfg, (&x, y, A, B, len))?.1
                }
            };
            in_back[slot] = Some(work.signal(x)?); // compute -> copy-in
            let y = down.wait_for(work.signal(y)?)?; // compute -> copy-out
            results.push(down.copy(&y, output)?);
            out_back[slot] = Some(down.signal(y)?); // copy-out -> compute
        }
        for (k, result) in results.into_iter().enumerate() {
            let result = result.wait()?;
            let expected: Vec<f32> = batch(k, len).iter().map(|x| A * x + B).collect();
            assert_eq!(
                result.to_vec(),
                expected,
                "batch {k}: device result differs from the CPU's"
            );
        }
        Ok(())
    })?;
    println!(
        "run mode {:?}: {BATCHES} batches of {len} values through copy-in -> compute -> \
         copy-out with two slots per side, results match the CPU",
        M::KIND
    );
    drop((inputs, outputs, in_slots, out_slots));
    binary.unload()?; // after the scope: no launch is pending
    let handles = [copy_in.as_raw(), compute.as_raw(), copy_out.as_raw()];
    copy_in.destroy()?;
    compute.destroy()?;
    copy_out.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    Ok(handles)
}

/// The example between `Acl::init` and `finalize`, on batches of `len`
/// values ([`BATCH_LEN`] in `main`), each kernel taking `kernel_time` on the
/// simulator. `tests/failure_rule/sweep.rs` runs it too (with no kernel time
/// and short batches: the same calls in the same order), with each of its C
/// calls made to fail once.
pub fn flow(acl: &Acl, kernel_time: Duration, len: usize) -> aclrt::Result<()> {
    run_with_len(acl, kernel_time, len).map(|_| ())
}

/// [`flow`] on batches of [`BATCH_LEN`] values, returning the `aclrtStream`
/// handles of copy-in, compute and copy-out (to find their lanes in the
/// trace).
pub fn run(acl: &Acl, kernel_time: Duration) -> aclrt::Result<[*mut c_void; 3]> {
    run_with_len(acl, kernel_time, BATCH_LEN)
}

fn run_with_len(acl: &Acl, kernel_time: Duration, len: usize) -> aclrt::Result<[*mut c_void; 3]> {
    match acl.detect() {
        Detected::Host(rt) => pipeline(rt, kernel_time, len),
        Detected::Device(rt) => pipeline(rt, kernel_time, len),
    }
}

/// How long a kernel takes on the simulator in `main`.
const KERNEL_TIME: Duration = Duration::from_millis(4);

aclrt::not_sim! {
    fn main() -> aclrt::Result<()> {
        let acl = Acl::init()?;
        flow(&acl, KERNEL_TIME, BATCH_LEN)?;
        acl.finalize()?;
        println!("19_compute_pipeline: OK");
        Ok(())
    }
}

aclrt::sim_only! {
    fn main() -> Result<(), Box<dyn std::error::Error>> {
        use aclrt::sim::SimConfig;
        use aclrt::sim::trace::{self, SvgOptions};
        use std::path::PathBuf;

        let svg_path = std::env::args_os()
            .nth(1)
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/compute_pipeline.svg")
            });
        let trace_path = svg_path.with_extension("trace.json");
        if let Some(dir) = svg_path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        aclrt::sim::configure(SimConfig {
            trace_path: Some(trace_path.clone()),
            ..SimConfig::from_env()
        });

        let acl = Acl::init()?;
        let mode = format!("{:?}", acl.run_mode());
        let [copy_in, compute, copy_out] = run(&acl, KERNEL_TIME)?;
        acl.finalize()?;
        aclrt::sim::audit().assert_clean();

        let trace = trace::last().ok_or("the simulator kept no trace")?;
        let ms = KERNEL_TIME.as_secs_f64() * 1e3;
        let options = SvgOptions::new()
            .title(format!(
                "aclrt simulator: double-buffered pipeline, {BATCHES} batches of {} KiB (run mode \
                 {mode})",
                BATCH_LEN * 4 / 1024
            ))
            .label(copy_in, "copy-in")
            .note(copy_in, format!("{} ms delay/task", ms / 4.0))
            .label(compute, "compute")
            .note(compute, format!("kernel ≥ {ms} ms"))
            .label(copy_out, "copy-out");
        let svg = trace::render_svg(&trace, &options);
        std::fs::write(&svg_path, &svg)?;
        println!("trace:    {}", trace_path.display());
        println!("timeline: {}", svg_path.display());

        let lane = |stream| trace.lane(stream).ok_or("a pipeline stream has no lane");
        let overlapped = overlap::check(&trace, lane(copy_in)?, lane(compute)?, lane(copy_out)?)?;
        println!(
            "overlap: the copy-in of batch k+1 ran during the kernel of batch k for {overlapped} of \
             {} batches",
            BATCHES - 1
        );
        println!("19_compute_pipeline: OK");
        Ok(())
    }
}

aclrt::sim_only! {
    /// What the trace must show.
    pub mod overlap {
        use aclrt::sim::trace::{Lane, Task, Trace};

        /// The tasks of `category` on `lane`, in queue order.
        fn tasks<'a>(lane: &'a Lane, category: &str) -> Vec<&'a Task> {
            let mut v: Vec<&Task> = lane
                .tasks
                .iter()
                .filter(|t| t.category == category)
                .collect();
            v.sort_by_key(|t| t.seq);
            v
        }

        /// Whether two tasks ran at the same time for a while.
        pub fn overlaps(a: &Task, b: &Task) -> bool {
            a.start_us < b.end_us() && b.start_us < a.end_us()
        }

        /// Checks the pipeline's trace: one copy per batch on copy-in and
        /// copy-out, one kernel per batch on compute; kernel k starts after
        /// copy-in k ends, copy-out k after kernel k ends, copy-in k+2 (the same
        /// slot) after kernel k ends; and the copy-in of batch k+1 overlaps the
        /// kernel of batch k at least once. Returns for how many batches it did.
        pub fn check(
            trace: &Trace,
            copy_in: &Lane,
            compute: &Lane,
            copy_out: &Lane,
        ) -> Result<usize, String> {
            let n = super::BATCHES;
            let (ins, kernels, outs) = (
                tasks(copy_in, "copy"),
                tasks(compute, "kernel"),
                tasks(copy_out, "copy"),
            );
            if ins.len() != n || kernels.len() != n || outs.len() != n {
                return Err(format!(
                    "expected {n} copy-ins, kernels and copy-outs, the trace has {}, {} and {}",
                    ins.len(),
                    kernels.len(),
                    outs.len()
                ));
            }
            // 1 µs of slack: the trace's timestamps are rounded.
            let after = |later: &Task, earlier: &Task| later.start_us + 1.0 >= earlier.end_us();
            for k in 0..n {
                if !after(kernels[k], ins[k]) {
                    return Err(format!("kernel {k} started before its copy-in ended"));
                }
                if !after(outs[k], kernels[k]) {
                    return Err(format!("copy-out {k} started before its kernel ended"));
                }
                if k + 2 < n && !after(ins[k + 2], kernels[k]) {
                    return Err(format!(
                        "copy-in {} overwrote input slot {} before kernel {k} ended",
                        k + 2,
                        k % 2
                    ));
                }
                if k + 2 < n && !after(kernels[k + 2], outs[k]) {
                    return Err(format!(
                        "kernel {} overwrote output slot {} before copy-out {k} ended",
                        k + 2,
                        k % 2
                    ));
                }
            }
            let overlapped = (0..n - 1)
                .filter(|&k| overlaps(ins[k + 1], kernels[k]))
                .count();
            if overlapped == 0 {
                return Err(format!(
                    "no copy-in of batch k+1 overlapped the kernel of batch k ({} lanes in the trace)",
                    trace.lanes.len()
                ));
            }
            Ok(overlapped)
        }
    }
}
