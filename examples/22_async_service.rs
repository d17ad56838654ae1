//! An async inference service: a tokio multi-thread runtime, 256 client
//! tasks (`'static`, moving between threads) sending requests over the
//! device actor's bounded in-process queue, and one actor thread that owns
//! the device, the context, two lanes and the buffers, batching requests
//! as they arrive (a window and a maximum batch), running a kernel on the
//! NPU between copies, and answering every request of a batch when its
//! work is done. Every reply is checked against the CPU. One kernel fault
//! is injected (simulator): it fails exactly the requests of its batch,
//! whose clients send them again; the actor goes on. Clients stop by
//! themselves; the actor drains its queue and stops; the audit is clean.
//!
//! What it shows:
//! * `aclrt::actor::spawn_scoped`: the actor's `serve` borrows the runtime;
//!   the `Handle` is `Send + Clone + 'static`, for `tokio::spawn`;
//! * `Inbox::next_batch` / `Inbox::collect_during`: the next batch is
//!   collected while the device works on this one (an async body in the
//!   batch's scope, run by `aclrt::future::block_on`);
//! * `InFlight::wait_async`: the two lanes' outputs awaited together;
//! * a fault fails its batch only: each batch has a scope of its own;
//! * no executor thread ever blocks on the NPU (the clients await).
//!
//! `cargo run --example 22_async_service` and
//! `ACLRT_SIM_RUN_MODE=device cargo run --example 22_async_service`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use aclrt::actor::{self, ActorConfig, ActorError, Handle, Inbox, Shutdown};
use aclrt::future::block_on;
use aclrt::kernel::{Binary, Count, In, KernelRef, Out};
use aclrt::{
    Acl, Context, Detected, DeviceBuffer, ErrorKind, HostBuffer, InFlight, Lane, RunMode, Runtime,
    make_guard,
};

/// Elements per request (one row; the kernel computes its softmax).
const WIDTH: usize = 64;
/// Requests per batch at most, half on each lane.
const MAX_BATCH: usize = 32;
const HALF: usize = MAX_BATCH / 2;
/// The load of `main`: clients, and requests each sends one after another.
const CLIENTS: usize = 256;
const REQUESTS: usize = 4;
/// The request whose batch's kernel faults (once).
const FAULTY: Request = Request { client: 5, seq: 1 };

type Softmax = (In<f32>, Out<f32>, Count);

aclrt::sim_only! {
    /// The binary holding `async_softmax_rows`, the simulator's stand-in
    /// for device code: block `b` of `nb` does rows `b, b + nb, ...`.
    fn device_binary() -> Vec<u8> {
        aclrt::sim::register_kernel("async_softmax_rows", |block, blocks, args| {
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
        aclrt::sim::binary_image(&["async_softmax_rows"])
    }
}

aclrt::not_sim! {
    /// With real hardware: an AI Core object built by the Ascend C toolchain.
    fn device_binary() -> Vec<u8> {
        let path = std::env::var("SOFTMAX_BIN").expect("set SOFTMAX_BIN to the kernel object");
        std::fs::read(path).expect("reading the kernel object")
    }
}

/// The CPU's softmax of one row: the reference every reply is checked against.
fn softmax(xs: &[f32]) -> Vec<f32> {
    let max = xs.iter().copied().fold(f32::MIN, f32::max);
    let exps: Vec<f32> = xs.iter().map(|x| (x - max).exp()).collect();
    let sum: f32 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}

/// A client's request: its row is derived from who sent it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Request {
    client: usize,
    seq: usize,
}

impl Request {
    fn row(self) -> Vec<f32> {
        (0..WIDTH)
            .map(|i| ((self.client * 31 + self.seq * 17 + i * 7) % 97) as f32 * 0.05)
            .collect()
    }
}

/// One lane's buffers, reused by every batch.
struct Half<'ctx, 'id, M: RunMode> {
    staging: HostBuffer<'ctx, 'id, f32, M>,
    d_in: DeviceBuffer<'ctx, 'id, f32>,
    d_out: DeviceBuffer<'ctx, 'id, f32>,
    out: HostBuffer<'ctx, 'id, f32, M>,
}

impl<'ctx, 'id, M: RunMode> Half<'ctx, 'id, M> {
    fn new(ctx: &'ctx Context<'ctx, 'id, M>) -> aclrt::Result<Self> {
        Ok(Half {
            staging: ctx.alloc_host_zeroed(HALF * WIDTH)?,
            d_in: ctx.alloc(HALF * WIDTH)?,
            d_out: ctx.alloc(HALF * WIDTH)?,
            out: ctx.alloc_host_zeroed(HALF * WIDTH)?,
        })
    }
}

/// Queue one half-batch on `lane`: copy in, the kernel, copy out.
#[allow(clippy::too_many_arguments)]
fn queue_half<'s, 'env, 'ctx, 'id, 'sid, M: RunMode>(
    lane: &Lane<'s, 'env, 'id, 'sid, M>,
    binary: &'s Binary<'_, 'id>,
    kernel: KernelRef<'id, Softmax>,
    staging: &'s HostBuffer<'ctx, 'id, f32, M>,
    d_in: &'s mut DeviceBuffer<'ctx, 'id, f32>,
    d_out: &'s mut DeviceBuffer<'ctx, 'id, f32>,
    out: &'s mut HostBuffer<'ctx, 'id, f32, M>,
) -> aclrt::Result<InFlight<'s, 'sid, HostBuffer<'ctx, 'id, f32, M>>> {
    let d_in = lane.copy(staging, d_in)?;
    let (_, d_out, _) =
        lane.launch_in(binary, kernel, HALF as u32, (&d_in, d_out, HALF * WIDTH))?;
    lane.copy(&d_out, out)
}

/// How a batch ended badly: its work failed (a device fault, reported by
/// a wait: the batch fails, the service goes on), or the service did.
enum Stop {
    Batch(aclrt::Error),
    Fatal(aclrt::Error),
}

impl Stop {
    /// A failed wait: a device fault fails the batch.
    fn of_wait(e: aclrt::Error) -> Stop {
        if e.kind() == ErrorKind::DeviceFault {
            Stop::Batch(e)
        } else {
            Stop::Fatal(e)
        }
    }
}

/// What the scope's end reports (a fault no wait reported is the batch's).
impl From<aclrt::Error> for Stop {
    fn from(e: aclrt::Error) -> Stop {
        Stop::of_wait(e)
    }
}

/// The actor's body: the context, the kernel, two lanes' buffers; one
/// scope per batch (a fault fails that batch only). Device faults fail
/// their batch and the actor goes on; any other error stops it.
fn serve<M: RunMode>(
    rt: Runtime<'_, M>,
    mut inbox: Inbox<Request, Vec<f32>>,
    inject: bool,
) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    device.with_context(|ctx| {
        let binary = ctx.load_binary(&device_binary())?;
        // SAFETY: `async_softmax_rows` reads `In` and writes `Out`, each
        // below `Count` elements, and nothing else (see `device_binary`).
        let kernel = unsafe { binary.kernel_ref::<Softmax>(c"async_softmax_rows")? };
        let streams = [ctx.create_stream()?, ctx.create_stream()?];
        let (mut h0, mut h1) = (Half::new(ctx)?, Half::new(ctx)?);
        let mut injected = !inject;
        let mut next = inbox.next_batch();
        let mut result = Ok(());
        while let Some(batch) = next.take() {
            let (reqs, replies) = batch.into_parts();
            for (i, r) in reqs.iter().enumerate() {
                let h = if i < HALF { &mut h0 } else { &mut h1 };
                let at = (i % HALF) * WIDTH;
                h.staging[at..at + WIDTH].copy_from_slice(&r.row());
            }
            let fault_here = !injected && reqs.contains(&FAULTY);
            let inbox = &mut inbox;
            let (binary, streams) = (&binary, &streams);
            let (s0, s1) = (&h0.staging, &h1.staging);
            let (i0, o0, r0) = (&mut h0.d_in, &mut h0.d_out, &mut h0.out);
            let (i1, o1, r1) = (&mut h1.d_in, &mut h1.d_out, &mut h1.out);
            let done = ctx.try_scope(|s| {
                make_guard!(g);
                let lanes = s.lanes(streams, g);
                aclrt::sim_only! {
                    if fault_here {
                        // The next kernel on lane 0 faults (507015).
                        aclrt::sim::inject_kernel_fault(
                            Some(streams[0].as_raw()), 1, aclrt::sim::KERNEL_FAULT_CODE);
                    }
                }
                // A call that queues work fails the service, not the batch.
                let a =
                    queue_half(&lanes[0], binary, kernel, s0, i0, o0, r0).map_err(Stop::Fatal)?;
                let b =
                    queue_half(&lanes[1], binary, kernel, s1, i1, o1, r1).map_err(Stop::Fatal)?;
                block_on(async {
                    let work = async {
                        let (ra, rb) = join(a.wait_async(), b.wait_async()).await;
                        ra.map_err(|e| Stop::of_wait(e.into()))?;
                        rb.map_err(|e| Stop::of_wait(e.into()))?;
                        Ok::<_, Stop>(())
                    };
                    let (r, collected) = inbox.collect_during(work).await;
                    next = collected;
                    r
                })
            });
            injected |= fault_here;
            match done {
                Ok(()) => {
                    let rows = (0..reqs.len()).map(|i| {
                        let h = if i < HALF { &h0 } else { &h1 };
                        let at = (i % HALF) * WIDTH;
                        h.out[at..at + WIDTH].to_vec()
                    });
                    replies.send(rows.collect::<Vec<_>>());
                }
                Err(Stop::Batch(e)) => replies.fail(e),
                Err(Stop::Fatal(e)) => {
                    replies.fail(e.clone());
                    result = Err(e);
                    break;
                }
            }
            if next.is_none() {
                // `None` only once the actor is shut down and drained.
                next = inbox.next_batch();
            }
        }
        drop(inbox);
        drop((h0, h1));
        for stream in streams {
            stream.destroy()?;
        }
        binary.unload()?;
        result
    })?
}

/// Both futures, polled together (a `join!` without an executor's macro).
async fn join<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (std::pin::pin!(a), std::pin::pin!(b));
    let (mut ra, mut rb) = (None, None);
    std::future::poll_fn(|cx| {
        if ra.is_none() {
            if let std::task::Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let std::task::Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        if ra.is_some() && rb.is_some() {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    match (ra, rb) {
        (Some(a), Some(b)) => (a, b),
        _ => unreachable!("both ready above"),
    }
}

/// What the clients saw.
#[derive(Debug, Default)]
struct Tally {
    served: AtomicUsize,
    /// Requests failed by their batch's device fault (sent again).
    failed: AtomicUsize,
    /// Requests that found the actor gone (it stopped on an error).
    refused: AtomicUsize,
}

/// One client: `requests` requests one after another, each reply checked
/// against the CPU; a request failed by a device fault is sent again.
async fn client(handle: Handle<Request, Vec<f32>>, id: usize, requests: usize, tally: Arc<Tally>) {
    for seq in 0..requests {
        let req = Request { client: id, seq };
        let mut tries = 0;
        loop {
            tries += 1;
            match handle.call(req).await {
                Ok(row) => {
                    let expected = softmax(&req.row());
                    let close = row.iter().zip(&expected).all(|(r, e)| (r - e).abs() < 1e-5);
                    assert!(
                        row.len() == WIDTH && close,
                        "{req:?}: the NPU's softmax differs"
                    );
                    tally.served.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                Err(ActorError::Failed(e)) if e.kind() == ErrorKind::DeviceFault && tries < 3 => {
                    tally.failed.fetch_add(1, Ordering::Relaxed);
                }
                Err(_) => {
                    // The actor stopped (its error is the flow's).
                    tally.refused.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            }
        }
    }
}

/// `clients` tasks of `requests` requests on a tokio multi-thread runtime
/// against an actor on device 0; returns what the clients saw, or the
/// actor's error.
fn run<M: RunMode>(rt: Runtime<'_, M>, clients: usize, requests: usize) -> aclrt::Result<Tally> {
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .expect("a tokio runtime");
    let config = ActorConfig {
        queue: 128,
        max_batch: MAX_BATCH,
        window: Duration::from_micros(300),
    };
    let tally = Arc::new(Tally::default());
    std::thread::scope(|ts| {
        let (handle, actor) = actor::spawn_scoped(ts, config, move |inbox| serve(rt, inbox, true))
            .expect("the actor thread");
        tokio.block_on(async {
            let tasks: Vec<_> = (0..clients)
                .map(|id| tokio::spawn(client(handle.clone(), id, requests, tally.clone())))
                .collect();
            for t in tasks {
                t.await.expect("a client panicked");
            }
        });
        actor.shutdown(Shutdown::Drain)
    })?;
    Arc::try_unwrap(tally).map_err(|_| aclrt::Error::WorkAborted)
}

fn check<M: RunMode>(rt: Runtime<'_, M>, clients: usize, requests: usize) -> aclrt::Result<()> {
    let t0 = std::time::Instant::now();
    let tally = run(rt, clients, requests)?;
    let served = tally.served.into_inner();
    let failed = tally.failed.into_inner();
    assert_eq!(
        served,
        clients * requests,
        "every request served and checked"
    );
    assert_eq!(tally.refused.into_inner(), 0);
    aclrt::sim_only! {
        if clients > FAULTY.client && requests > FAULTY.seq {
            assert!((1..=MAX_BATCH).contains(&failed), "the fault failed {failed} requests");
        }
    }
    println!(
        "{served} requests from {clients} clients served in {:?} ({failed} failed by the injected fault and sent again), {:?}",
        t0.elapsed(),
        M::KIND
    );
    Ok(())
}

/// The example between `Acl::init` and `finalize`, with a small load (the
/// fault sweep runs it once per C call): one client, so the batches, and
/// the calls, are the same every run.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    match acl.detect() {
        Detected::Host(rt) => check(rt, 1, 3),
        Detected::Device(rt) => check(rt, 1, 3),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    match acl.detect() {
        Detected::Host(rt) => check(rt, CLIENTS, REQUESTS)?,
        Detected::Device(rt) => check(rt, CLIENTS, REQUESTS)?,
    }
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("22_async_service: OK");
    Ok(())
}
