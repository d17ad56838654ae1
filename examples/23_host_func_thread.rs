//! Host functions served by a thread the program owns
//! (`aclrtSubscribeHostFunc`, `aclrtProcessHostFunc`,
//! `aclrtUnSubscribeHostFunc`) with [`Stream::serve_host_fns`]: a worker
//! thread queues host functions on a stream, and the main thread runs them,
//! in order, between its own work.
//!
//! The runtime offers host-function threads on IPV350 only; other chips
//! answer "not supported", which the program must handle. This example
//! first shows that answer (the simulator's default, as the chips it
//! models), then asks the simulator for the compact runtime's service
//! (`SimConfig::host_func_threads`, or `ACLRT_SIM_HOST_FUNC_THREADS=compact`)
//! and serves the stream.
//!
//! Runs in both run modes: `cargo run --example 23_host_func_thread`
//! (`ACLRT_SIM_RUN_MODE=device` for ACL_DEVICE on the simulator).
//!
//! [`Stream::serve_host_fns`]: aclrt::Stream::serve_host_fns

use std::sync::mpsc;
use std::time::Duration;

use aclrt::sim::{HostFuncThreads, SimConfig};
use aclrt::{Acl, Context, Detected, ErrorKind, Processed, RunMode, make_guard};

/// Serves `batches` host functions queued by a worker thread; returns
/// whether the chip offers host-function threads.
fn serve<M: RunMode>(ctx: &Context<'_, '_, M>, batches: u32) -> aclrt::Result<bool> {
    let stream = ctx.create_stream()?;
    let (tx, rx) = mpsc::channel();
    let served = std::thread::scope(|scope| {
        stream.serve_host_fns(|server| -> aclrt::Result<u32> {
            let worker = scope.spawn(|| -> aclrt::Result<()> {
                for batch in 0..batches {
                    let tx = tx.clone();
                    // Runs on the serving (main) thread, inside `process`.
                    stream.launch_host_fn(move || {
                        tx.send((batch, std::thread::current().name().map(String::from)))
                            .unwrap();
                    })?;
                }
                Ok(())
            });
            let mut ran = 0;
            while ran < batches {
                match server.process(Duration::from_millis(50))? {
                    Processed::Ran => ran += 1,
                    // Nothing due yet: the thread could do other work here.
                    Processed::TimedOut => {}
                }
            }
            worker.join().expect("the worker does not panic")?;
            Ok(ran)
        })
    });
    let served = match served {
        Ok(ran) => ran?,
        Err(e) if e.kind() == ErrorKind::NotSupported => {
            println!("  host-function threads: not supported on this chip ({e})");
            stream.destroy()?;
            return Ok(false);
        }
        Err(e) => return Err(e),
    };
    stream.synchronize()?;
    drop(tx);
    let got: Vec<_> = rx.iter().collect();
    let me = std::thread::current().name().map(String::from);
    assert_eq!(got.len() as u32, served);
    for (i, (batch, thread)) in got.iter().enumerate() {
        assert_eq!(*batch, i as u32, "in order");
        assert_eq!(*thread, me, "on the serving thread");
    }
    println!("  served {served} host functions on {me:?}, in order");
    stream.destroy()?;
    Ok(true)
}

fn run(batches: u32) -> aclrt::Result<bool> {
    let acl = Acl::init()?;
    let offered = match acl.detect() {
        Detected::Host(rt) => {
            let device = rt.device(0)?;
            make_guard!(g);
            let ctx = device.create_context(g)?;
            let offered = serve(&ctx, batches)?;
            ctx.destroy()?;
            offered
        }
        Detected::Device(rt) => {
            let device = rt.device(0)?;
            make_guard!(g);
            let ctx = device.create_context(g)?;
            let offered = serve(&ctx, batches)?;
            ctx.destroy()?;
            offered
        }
    };
    acl.finalize()?;
    Ok(offered)
}

fn main() -> aclrt::Result<()> {
    println!("the modelled chip (simulator default):");
    let offered = run(4)?;
    assert!(!offered, "the modelled chips answer 207000");
    // That answer is recorded as an UNSUPPORTED report; start afresh.
    aclrt::sim::reset();
    println!("the compact runtime's service (ACLRT_SIM_HOST_FUNC_THREADS=compact):");
    aclrt::sim::configure(SimConfig {
        host_func_threads: HostFuncThreads::Compact,
        ..SimConfig::from_env()
    });
    assert!(run(8)?);
    println!("host_func_thread: ok");
    Ok(())
}
