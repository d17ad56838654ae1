//! Exception-info callbacks: `Acl::on_exception` registers a closure that
//! the runtime calls, on a thread of its own, with each failed task's
//! facts (`aclrtGet{DeviceId,StreamId,TaskId,ErrorCode}FromExceptionInfo`).
//! A reported failure on a stream the crate made is entered for that
//! stream under the failure rule before the closure runs.
//!
//! On the simulator a task fault is injected on the stream's next task; on
//! a real device nothing fails and the closure is not called.
//!
//! Runs in both run modes: `cargo run --example 28_exceptions`
//! (`ACLRT_SIM_RUN_MODE=device` for ACL_DEVICE on the simulator).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aclrt::{Acl, Detected, Error, ExceptionInfo, RunMode, Runtime, make_guard};

fn run<M: RunMode>(acl: &Acl, rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let reports: Arc<Mutex<Vec<ExceptionInfo>>> = Arc::default();
    let sink = reports.clone();
    let handler = acl.on_exception(move |info| {
        println!(
            "  exception: device {}, stream {}, task {}, code {} ({:?})",
            info.device(),
            info.stream_id(),
            info.task_id(),
            info.error_code(),
            info.kind()
        );
        sink.lock().unwrap().push(*info);
    })?;

    let device = rt.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    let stream = ctx.create_stream()?;
    // Set by the simulator's injection; stays false on a real runtime.
    #[allow(unused_mut, unused_assignments)]
    let mut injected = false;
    aclrt::sim_only! {
        aclrt::sim::inject_stream_task_fault(
            stream.as_raw(),
            1,
            aclrt::sys::ACL_ERROR_RT_AICORE_EXCEPTION,
        );
        injected = true;
    }
    stream.launch_host_fn(|| println!("  host function ran"))?;
    match stream.synchronize() {
        Ok(()) => println!("stream {}: no failure", stream.id()?),
        Err(e) => println!("stream {}: synchronize reports {e}", stream.id()?),
    }
    if injected {
        // The report runs on the runtime's thread: wait for it (bounded).
        let t0 = Instant::now();
        while reports.lock().unwrap().is_empty() && t0.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let got = reports.lock().unwrap().clone();
        assert_eq!(got.len(), 1, "one failed task, one report");
        assert!(got[0].names(&stream), "the report names its stream");
        assert!(got[0].entered(), "and counts as its failure");
        // The host function whose task failed never ran: the stream's next
        // synchronisation says so once; the stream is usable after.
        match stream.synchronize() {
            Ok(()) | Err(Error::WorkAborted) => {}
            Err(e) => return Err(e),
        }
    }
    stream.launch_host_fn(|| println!("  a later host function ran"))?;
    stream.synchronize()?;
    stream.destroy()?;
    ctx.destroy()?;
    device.reset()?;
    handler.unregister()
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    match acl.detect() {
        Detected::Host(rt) => run(&acl, rt)?,
        Detected::Device(rt) => run(&acl, rt)?,
    }
    acl.finalize()?;
    aclrt::sim_only! { assert!(aclrt::sim::audit().leaks.is_empty()); }
    println!("exceptions: ok");
    Ok(())
}
