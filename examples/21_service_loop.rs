//! A service loop in one scope: the state (binary, kernel, streams, every
//! buffer) is held for the whole program; one scope serves every batch,
//! reusing the same pinned staging buffers and device buffers; batches go
//! round-robin over N streams picked by index; batch k is queued before
//! batch k−2N of the same slot is collected, so a stream never idles while
//! the CPU collects; a batch whose kernel faults (injected on the
//! simulator) is collected, reported and queued again, without leaving the
//! scope. In both run modes, with a clean audit at the end.
//!
//! What it shows (issue 25):
//! * `KernelRef` + `Lane::launch_in`: a `Binary` and its kernels in one
//!   struct (a `Kernel` borrows its binary; a `KernelRef` does not, and the
//!   launch checks it against the binary it is given);
//! * `Scope::lanes`: N lanes under one brand, in a `Vec`, picked with
//!   `lanes[j % N]` (an operand of one lane used on another is refused at
//!   run time with `Error::WrongLane`, never queued);
//! * `Lane::park`: a buffer taken onto a lane without work, so a copy's
//!   source (the staging buffer) comes back to the CPU, and one field type
//!   (`InFlight`/`Fence`) holds a buffer from its first use on;
//! * `InFlight::fence` + `Fence::reuse`: the staging buffer comes back at
//!   the event recorded after its last use (`aclrtSynchronizeEvent`), not
//!   after the whole stream, while the lane's later batch runs;
//! * `Fence::wait_or_keep`: a checked wait of the output (the runtime
//!   reports a device fault to a stream synchronisation only); a failed
//!   wait gives the fence back, and `reuse` the buffer; `Scope::recover`,
//!   the recovery point, lets the loop go on in the same scope;
//! * `aclrt::sim_only!`: simulator-only code that stays in a user's crate.
//!
//! `cargo run --example 21_service_loop` and
//! `ACLRT_SIM_RUN_MODE=device cargo run --example 21_service_loop`.

use std::collections::VecDeque;

use aclrt::kernel::{Binary, Count, In, KernelRef, Out};
use aclrt::{
    Acl, Context, Detected, DeviceBuffer, ErrorKind, Fence, HostBuffer, RunMode, Runtime, Stream,
    make_guard,
};

/// Elements per row; the kernel computes a softmax of every row.
const WIDTH: usize = 64;
/// Rows per batch.
const ROWS: usize = 16;
const BATCH: usize = WIDTH * ROWS;
/// Streams, and buffer slots per stream (double buffering).
const STREAMS: usize = 3;
const SLOTS: usize = 2 * STREAMS;
/// Batches the demo serves, and the one whose first run faults.
const BATCHES: usize = 18;
const FAULTY: usize = 7;

type Softmax = (In<f32>, Out<f32>, Count);

aclrt::sim_only! {
    /// The binary holding `softmax_rows`, the simulator's stand-in for
    /// device code: block `b` of `nb` does rows `b, b + nb, ...` below `n`.
    fn device_binary() -> Vec<u8> {
        aclrt::sim::register_kernel("softmax_rows", |block, blocks, args| {
            let (x, y, n) = (args.u64(0)?, args.u64(1)?, args.u64(2)? as usize);
            for row in (block as usize..n / WIDTH).step_by(blocks as usize) {
                let xs = (0..WIDTH)
                    .map(|i| args.read_f32(x, row * WIDTH + i))
                    .collect::<Result<Vec<_>, _>>()?;
                for (i, v) in softmax(&xs).into_iter().enumerate() {
                    args.write_f32(y, row * WIDTH + i, v)?;
                }
            }
            Ok(())
        });
        aclrt::sim::binary_image(&["softmax_rows"])
    }
}

aclrt::not_sim! {
    /// With real hardware: an AI Core object built by the Ascend C toolchain.
    fn device_binary() -> Vec<u8> {
        let path = std::env::var("SOFTMAX_BIN").expect("set SOFTMAX_BIN to the kernel object");
        std::fs::read(path).expect("reading the kernel object")
    }
}

/// The CPU's softmax of one row: the reference the results are checked against.
fn softmax(xs: &[f32]) -> Vec<f32> {
    let max = xs.iter().copied().fold(f32::MIN, f32::max);
    let exps: Vec<f32> = xs.iter().map(|x| (x - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}

/// The input of batch `b`.
fn request(b: usize) -> Vec<f32> {
    (0..BATCH)
        .map(|i| ((b * 31 + i * 7) % 97) as f32 * 0.05)
        .collect()
}

/// One slot's buffers, owned by the service and reused by every batch.
struct Buffers<'ctx, 'id, M: RunMode> {
    staging: HostBuffer<'ctx, 'id, f32, M>,
    d_in: DeviceBuffer<'ctx, 'id, f32>,
    d_out: DeviceBuffer<'ctx, 'id, f32>,
    out: HostBuffer<'ctx, 'id, f32, M>,
}

/// A slot inside the scope: the same buffers, in flight on the slot's lane
/// (type parameters, so the scope's lifetimes need no names).
struct InUse<Staging, Device, Output> {
    staging: Staging,
    d_in: Device,
    d_out: Device,
    out: Output,
    /// The batch whose result `out` will hold.
    batch: Option<usize>,
}

/// Everything the service holds for the life of the program: the binary
/// **and** its kernel, the streams and the buffers.
struct Service<'ctx, 'id, M: RunMode> {
    binary: Binary<'ctx, 'id>,
    softmax: KernelRef<'id, Softmax>,
    streams: Vec<Stream<'ctx, 'id>>,
    slots: Vec<Buffers<'ctx, 'id, M>>,
    ctx: &'ctx Context<'ctx, 'id, M>,
}

impl<'ctx, 'id, M: RunMode> Service<'ctx, 'id, M> {
    fn start(ctx: &'ctx Context<'ctx, 'id, M>) -> aclrt::Result<Self> {
        let binary = ctx.load_binary(&device_binary())?;
        // SAFETY: `softmax_rows` reads `In` and writes `Out`, each below
        // `Count` elements, and nothing else (see `device_binary`).
        let softmax = unsafe { binary.kernel_ref::<Softmax>(c"softmax_rows")? };
        let streams = (0..STREAMS)
            .map(|_| ctx.create_stream())
            .collect::<aclrt::Result<_>>()?;
        let slots = (0..SLOTS)
            .map(|_| {
                Ok(Buffers {
                    staging: ctx.alloc_host_zeroed(BATCH)?,
                    d_in: ctx.alloc(BATCH)?,
                    d_out: ctx.alloc(BATCH)?,
                    out: ctx.alloc_host_zeroed(BATCH)?,
                })
            })
            .collect::<aclrt::Result<_>>()?;
        Ok(Service {
            binary,
            softmax,
            streams,
            slots,
            ctx,
        })
    }

    /// Release what the service made, reporting errors `Drop` would swallow.
    fn stop(self) -> aclrt::Result<()> {
        for stream in self.streams {
            stream.destroy()?;
        }
        self.binary.unload()
    }

    /// Serve batches `0..count` in one scope; returns each batch's result
    /// and, for each failed run, its batch and the function it failed in.
    #[allow(clippy::type_complexity)]
    fn serve(
        &mut self,
        count: usize,
    ) -> aclrt::Result<(Vec<Vec<f32>>, Vec<(usize, &'static str)>)> {
        let Service {
            binary,
            softmax,
            streams,
            slots,
            ctx,
        } = self;
        let (binary, softmax, streams) = (&*binary, *softmax, &streams[..]);
        let mut results = vec![Vec::new(); count];
        let mut queue: VecDeque<usize> = (0..count).collect();
        let mut failures = Vec::new();
        let mut injected = false;
        ctx.scope(|s| {
            make_guard!(g);
            let lanes = s.lanes(streams, g);
            // Every buffer parked on its slot's lane once, for the whole scope.
            let mut in_use = Vec::new();
            for (j, b) in slots.iter_mut().enumerate() {
                let lane = &lanes[j % STREAMS];
                in_use.push(Some(InUse {
                    staging: lane.park(&mut b.staging)?.fence()?,
                    d_in: lane.park(&mut b.d_in)?,
                    d_out: lane.park(&mut b.d_out)?,
                    out: lane.park(&mut b.out)?.fence()?,
                    batch: None,
                }));
            }
            let mut k = 0;
            loop {
                let next = queue.pop_front();
                let j = k % SLOTS;
                let lane = &lanes[j % STREAMS];
                let slot = in_use[j].take().expect("every slot is put back");
                // Collect what this slot ran last (batch k − SLOTS): only its
                // fence is waited for, the lane's later batch keeps running.
                let (out, fault) = collect(slot.out)?;
                if let Some(b) = slot.batch {
                    match fault {
                        None => results[b] = out.to_vec(),
                        Some(e) => {
                            println!("batch {b} failed: {e}; served again");
                            // Names the launch that queued the kernel, not the wait.
                            failures.push((b, e.function().unwrap_or("?")));
                            queue.push_back(b);
                            // The failure sticks to the scope until this
                            // recovery point (every lane synchronised): the
                            // batches queued before it fail their checked
                            // waits and are served again too; those queued
                            // after it are judged afresh.
                            s.recover()?;
                        }
                    }
                }
                let Some(b) = next else {
                    // Draining: this slot is idle now.
                    in_use[j] = Some(InUse { out: lane.park(out)?.fence()?, batch: None, ..slot });
                    if queue.is_empty() && in_use.iter().flatten().all(|u| u.batch.is_none()) {
                        return Ok(());
                    }
                    k += 1;
                    continue;
                };
                // The staging buffer's last read was before `out`'s fence: back at
                // once, and refilled whatever that batch's work did.
                let staging = slot.staging.reuse()?;
                staging.copy_from_slice(&request(b));
                let staging = lane.park(staging)?;
                let d_in = lane.copy(&staging, slot.d_in)?;
                aclrt::sim_only! {
                    if b == FAULTY && !injected {
                        injected = true;
                        // The next kernel on this stream faults (507015).
                        let raw = streams[j % STREAMS].as_raw();
                        aclrt::sim::inject_kernel_fault(Some(raw), 1, aclrt::sim::KERNEL_FAULT_CODE);
                    }
                }
                let (_, d_out, _) =
                    lane.launch_in(binary, softmax, ROWS as u32, (&d_in, slot.d_out, BATCH))?;
                let out = lane.copy(&d_out, lane.park(out)?)?.fence()?;
                in_use[j] = Some(InUse { staging: staging.fence()?, d_in, d_out, out, batch: Some(b) });
                k += 1;
            }
        })?;
        Ok((results, failures))
    }
}

/// Collect a slot's output with a checked wait (it synchronises the slot's
/// lane: the runtime reports a device fault to a stream synchronisation
/// only). A device fault of the work before the fence — seen by this wait
/// or by any synchronisation since the buffer was parked — gives the
/// buffer back with the fault (`reuse`), and the batch is served again;
/// other errors end the service (the scope still waits for its work).
fn collect<'s, D: ?Sized>(
    fence: Fence<'s, '_, D>,
) -> aclrt::Result<(&'s mut D, Option<aclrt::Error>)> {
    match fence.wait_or_keep() {
        Ok(buffer) => Ok((buffer, None)),
        Err(failed) if failed.error().kind() == ErrorKind::DeviceFault => {
            let (fault, fence) = failed.into_parts();
            Ok((fence.reuse()?, Some(fault)))
        }
        Err(failed) => Err(failed.into()),
    }
}

fn service_loop<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    device.with_context(|ctx| {
        let mut service = Service::start(ctx)?;
        let (results, failures) = service.serve(BATCHES)?;
        for (b, result) in results.iter().enumerate() {
            let expected: Vec<f32> = request(b).chunks(WIDTH).flat_map(softmax).collect();
            let close = result
                .iter()
                .zip(&expected)
                .all(|(r, e)| (r - e).abs() < 1e-5);
            assert!(
                result.len() == BATCH && close,
                "batch {b} differs from the CPU's softmax"
            );
        }
        aclrt::sim_only! {
            // The batch whose kernel faulted was served again (batches queued
            // before the recovery point were too: conservative).
            assert!(failures.iter().any(|&(b, _)| b == FAULTY), "the injected fault: {failures:?}");
        }
        println!(
            "{} batches over {STREAMS} streams in one scope ({} failed run(s) recovered), {:?}",
            results.len(),
            failures.len(),
            M::KIND
        );
        service.stop()
    })?
}

/// The example between `Acl::init` and `finalize`.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    match acl.detect() {
        Detected::Host(rt) => service_loop(rt),
        Detected::Device(rt) => service_loop(rt),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("21_service_loop: OK");
    Ok(())
}
