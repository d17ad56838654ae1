//! A three-stage pipeline ordered by notifies. Each stage is a stream; a
//! stage waits for the notify of the stage before it, does its work (here
//! host functions, so the order is visible), and records its own notify.
//! The waits are queued *before* the records they wait for (a notify,
//! unlike an event, may be waited for first), and the first stage is slowed
//! down on the simulator, so only the notifies keep the order.
//!
//! Notifies and streams carry their context's brand: waiting for a notify
//! on a stream of another context (another device) does not compile.

use std::sync::{Arc, Mutex};

use aclrt::{Acl, Detected, RunMode, Runtime, make_guard};

fn run<M: RunMode>(rt: Runtime<'_, M>) -> aclrt::Result<()> {
    let device = rt.device(0)?;
    make_guard!(guard);
    let ctx = device.create_context(guard)?;
    let stages = [
        ctx.create_stream()?,
        ctx.create_stream()?,
        ctx.create_stream()?,
    ];
    aclrt::sim_only! { aclrt::sim::set_stream_delay(stages[0].as_raw(), std::time::Duration::from_millis(30)); }
    let handoff = [ctx.create_notify()?, ctx.create_notify()?];
    let log = Arc::new(Mutex::new(Vec::new()));

    // Queue the last stage first: its wait comes before any record.
    for (i, stage) in stages.iter().enumerate().rev() {
        if i > 0 {
            stage.wait_notify(&handoff[i - 1])?;
        }
        let log = Arc::clone(&log);
        stage.launch_host_fn(move || log.lock().unwrap().push(i))?;
        if i < handoff.len() {
            stage.record_notify(&handoff[i])?;
        }
    }
    for stage in &stages {
        stage.synchronize()?;
    }
    let order = log.lock().unwrap().clone();
    assert_eq!(order, [0, 1, 2], "the notifies ordered the stages");
    println!(
        "stages ran in order {order:?} (notify ids {}, {})",
        handoff[0].id()?,
        handoff[1].id()?
    );
    Ok(())
}

fn main() -> aclrt::Result<()> {
    let acl = Acl::init()?;
    match acl.detect() {
        Detected::Host(rt) => run(rt)?,
        Detected::Device(rt) => run(rt)?,
    }
    acl.finalize()?;
    aclrt::sim_only! { aclrt::sim::audit().assert_clean(); }
    println!("26_notify_pipeline: OK");
    Ok(())
}
