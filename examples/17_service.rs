//! A long-running inference service: the device, the context, the streams
//! and the model weights live for the whole life of the service; worker
//! threads serve requests from a channel; shutdown is graceful; the
//! simulator's audit is clean at the end. In both run modes.
//!
//! The shape (the guide chapter *Structuring an application* explains why):
//! * `main` (here `flow`) owns the runtime objects, outermost first: `Acl`,
//!   `Device`, then the context, made by `Device::with_context`, which gives
//!   it a brand of its own and destroys it when the service returns;
//! * `Service<'ctx, 'id, M>` **borrows** the context and **owns** what was
//!   made through it (streams, weights): a struct may own children that
//!   borrow a parent it does not own;
//! * workers are `std::thread::scope` threads borrowing `&Service`: they
//!   cannot outlive it, and the scope joins them before the service goes;
//! * completions are counted by report callbacks on a `Reporter` thread
//!   (`aclrtSubscribeReport` / `aclrtLaunchCallback`), with no `unsafe`.
//!
//! "Inference" is a dot product of the request with the weights, computed on
//! the host from data that went through the device (the safe API has no
//! kernels in this example): the point is the life cycle, not the maths.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use aclrt::{Acl, Context, Detected, DeviceBuffer, Reporter, RunMode, Runtime, Stream, make_guard};

/// Elements per request.
const WIDTH: usize = 256;
/// Worker threads, each with a stream of its own.
const WORKERS: usize = 3;
/// Requests the demo client sends.
const REQUESTS: u32 = 24;

/// One request: an input vector and where to send the answer.
struct Request {
    id: u32,
    input: Vec<f32>,
    reply: Sender<(u32, aclrt::Result<f32>)>,
}

/// Everything the service holds for its whole life. It borrows the context
/// (`'ctx`, branded `'id`) and owns what it made through it.
struct Service<'ctx, 'id, M: RunMode> {
    ctx: &'ctx Context<'ctx, 'id, M>,
    /// The model: loaded once, read by every request.
    weights: DeviceBuffer<'ctx, 'id, f32>,
    /// One stream per worker.
    streams: Vec<Stream<'ctx, 'id>>,
    /// Completed requests, counted by report callbacks.
    completed: Arc<AtomicU64>,
}

impl<'ctx, 'id, M: RunMode> Service<'ctx, 'id, M> {
    fn start(ctx: &'ctx Context<'ctx, 'id, M>) -> aclrt::Result<Self> {
        let host_weights: Vec<f32> = (0..WIDTH).map(|i| (i % 7) as f32 * 0.5).collect();
        let weights = ctx.alloc_from(&host_weights)?; // aclrtMalloc + aclrtMemcpy
        let streams = (0..WORKERS)
            .map(|_| ctx.create_stream())
            .collect::<aclrt::Result<Vec<_>>>()?;
        Ok(Service {
            ctx,
            weights,
            streams,
            completed: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Serve requests on stream `worker` until the channel closes.
    fn worker(
        &self,
        worker: usize,
        requests: &Mutex<Receiver<Request>>,
        reporter: &Reporter,
    ) -> aclrt::Result<()> {
        let stream = &self.streams[worker];
        let sub = reporter.subscribe(stream)?; // aclrtSubscribeReport
        // Per-worker buffers, reused by every request it serves.
        let mut input = self.ctx.alloc_host_zeroed::<f32>(WIDTH)?;
        let mut on_device = self.ctx.alloc::<f32>(WIDTH)?;
        let mut back = self.ctx.alloc_host_zeroed::<f32>(WIDTH)?;
        let mut weights_back = self.ctx.alloc_host_zeroed::<f32>(WIDTH)?;
        loop {
            // The lock is held only to take one request.
            let next = requests.lock().unwrap_or_else(|e| e.into_inner()).recv();
            let Ok(req) = next else { break }; // channel closed and drained: shut down
            let answer = (|| -> aclrt::Result<f32> {
                if req.input.len() != WIDTH {
                    return Err(aclrt::Error::LengthMismatch {
                        src: req.input.len(),
                        dst: WIDTH,
                    });
                }
                input.copy_from_slice(&req.input);
                self.ctx.scope(|s| {
                    make_guard!(l);
                    let lane = s.lane(stream, l);
                    let d = lane.copy(&input, &mut on_device)?; // H2D (D2D in device mode)
                    let _ = lane.copy(&d, &mut back)?; // and back
                    let _ = lane.copy(&self.weights, &mut weights_back)?;
                    Ok(())
                })?; // synchronised here
                Ok(back
                    .iter()
                    .zip(weights_back.iter())
                    .map(|(x, w)| x * w)
                    .sum())
            })();
            // Count it once the stream has passed this point (non-blocking
            // report callback, runs on the reporter thread). A failure is
            // this request's answer; the worker keeps serving.
            let answer = answer.and_then(|v| {
                let completed = Arc::clone(&self.completed);
                sub.launch(move || {
                    completed.fetch_add(1, Ordering::AcqRel);
                })?;
                Ok(v)
            });
            let _ = req.reply.send((req.id, answer));
        }
        // Drain this worker's stream before unsubscribing.
        stream.synchronize()?;
        sub.unsubscribe() // aclrtUnSubscribeReport
    }
}

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    let reporter = Reporter::spawn()?;
    let served = device.with_context(|ctx| -> aclrt::Result<u64> {
        let service = Service::start(ctx)?;
        let (tx, rx) = mpsc::channel::<Request>();
        let rx = Mutex::new(rx);
        let (reply_tx, reply_rx) = mpsc::channel();
        let answers = std::thread::scope(|t| -> aclrt::Result<Vec<(u32, f32)>> {
            let workers: Vec<_> = (0..WORKERS)
                .map(|w| {
                    let (service, rx, reporter) = (&service, &rx, &reporter);
                    t.spawn(move || service.worker(w, rx, reporter))
                })
                .collect();
            // The request loop (here: a client sending REQUESTS requests).
            for id in 0..REQUESTS {
                let input = vec![id as f32; WIDTH];
                let reply = reply_tx.clone();
                // Cannot fail: `rx` lives until the end of `with_context`.
                let _ = tx.send(Request { id, input, reply });
            }
            // Graceful shutdown: close the channel; each worker serves what
            // is queued, drains its stream, unsubscribes and returns. The
            // thread scope joins them all (a worker's error is kept, the
            // others still finish).
            drop(tx);
            let mut first_error = None;
            for w in workers {
                if let Err(e) = w.join().expect("worker panicked") {
                    first_error.get_or_insert(e);
                }
            }
            if let Some(e) = first_error {
                return Err(e);
            }
            drop(reply_tx);
            reply_rx
                .iter()
                .map(|(id, r)| r.map(|v| (id, v)))
                .collect::<aclrt::Result<Vec<_>>>()
        })?;
        assert_eq!(answers.len(), REQUESTS as usize, "every request answered");
        let weight_sum: f32 = (0..WIDTH).map(|i| (i % 7) as f32 * 0.5).sum();
        for (id, v) in &answers {
            assert_eq!(*v, *id as f32 * weight_sum, "request {id}");
        }
        // Every stream is idle; the report callbacks have run.
        for s in &service.streams {
            s.synchronize()?;
        }
        Ok(service.completed.load(Ordering::Acquire))
        // `service` drops here: streams, then weights; then `with_context`
        // destroys the context.
    })??;
    reporter.stop()?;
    assert_eq!(served, u64::from(REQUESTS));
    println!("served {served} requests on {WORKERS} workers, shut down cleanly");
    Ok(())
}

/// The example between `Acl::init` and `finalize`.
pub fn flow(acl: &Acl) -> aclrt::Result<()> {
    match acl.detect() {
        Detected::Host(rt) => run(rt),
        Detected::Device(rt) => run(rt),
    }
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    flow(&acl)?;
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("17_service: OK");
    Ok(())
}
