//! A stream's runtime id is read the first time an exception report needs
//! it, not when the stream is made: in both run modes, a report on the
//! last of several streams whose ids no report has read yet is entered
//! for that stream only (the others' ids are read on the way and their
//! synchronisations stay clean), and after the failed stream's
//! destruction its id no longer finds it: a later stream (which the
//! runtime may give the same id) is the one a report on that id names.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aclrt::sim;
use aclrt::{Acl, Context, Error, ExceptionInfo, Result, RunMode, make_guard};
use common::*;

const FAULT: i32 = aclrt::sys::ACL_ERROR_RT_AICORE_EXCEPTION;

fn with_ctx<M: RunMode>(
    acl: &Acl,
    f: impl for<'id> FnOnce(&Context<'_, 'id, M>) -> Result<()>,
) -> Result<()> {
    let device = acl.require::<M>()?.device(0)?;
    make_guard!(g);
    let ctx = device.create_context(g)?;
    f(&ctx)?;
    ctx.destroy()?;
    device.reset()
}

/// Wait (bounded: a hang guard) until `n` reports arrived in `seen`.
fn wait_for(seen: &Mutex<Vec<ExceptionInfo>>, n: usize) -> Vec<ExceptionInfo> {
    let t0 = Instant::now();
    loop {
        let v = seen.lock().unwrap().clone();
        if v.len() >= n {
            return v;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "{} of {n} reports",
            v.len()
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// One failing task on `stream`, then its synchronisations: the fault,
/// then the stream is clean.
fn fail_once(stream: &aclrt::Stream<'_, '_>) {
    sim::inject_stream_task_fault(stream.as_raw(), 1, FAULT);
    stream.launch_host_fn(|| ()).expect("launch");
    let e = stream.synchronize().expect_err("the injected fault");
    assert_eq!(e.code(), Some(FAULT), "{e}");
    match stream.synchronize() {
        Ok(()) => {}
        Err(e) => assert!(matches!(e, Error::WorkAborted), "{e}"),
    }
}

fn flow<M: RunMode>(acl: &Acl, seen: &Mutex<Vec<ExceptionInfo>>) -> Result<()> {
    with_ctx::<M>(acl, |ctx| {
        let a = ctx.create_stream()?;
        let b = ctx.create_stream()?;
        let failing = ctx.create_stream()?;
        fail_once(&failing);
        let info = wait_for(seen, 1)[0];
        assert!(info.entered(), "the report found the stream's record");
        assert_eq!(info.stream_id() as i32, failing.id()?);
        assert!(info.names(&failing), "it names the failed stream");
        assert!(!info.names(&a) && !info.names(&b), "and no other");
        // The other streams were not failed by the report.
        for s in [&a, &b] {
            s.launch_host_fn(|| ())?;
            s.synchronize()?;
        }
        let old_id = failing.id()?;
        failing.destroy()?;
        // A later stream, perhaps with the same id: a report on it is its
        // own (the destroyed stream's record, and its id, left with it).
        let later = ctx.create_stream()?;
        fail_once(&later);
        let info = wait_for(seen, 2)[1];
        assert!(info.entered(), "the later stream's report was entered");
        assert!(info.names(&later), "it names the later stream");
        if later.id()? == old_id {
            assert!(!info.names(&a) && !info.names(&b));
        }
        later.launch_host_fn(|| ())?;
        later.synchronize()?;
        later.destroy()?;
        b.destroy()?;
        a.destroy()
    })
}

#[test]
fn a_report_reads_the_ids_it_needs_and_a_destroyed_streams_id_finds_nothing() {
    for (base, device_mode) in [(host_config(), false), (device_config(), true)] {
        let _sim = take(base);
        let acl = Acl::init().expect("aclInit");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let handler = acl
            .on_exception(move |info| sink.lock().unwrap().push(*info))
            .expect("handler");
        if device_mode {
            flow::<aclrt::DeviceMode>(&acl, &seen).expect("flow");
        } else {
            flow::<aclrt::HostMode>(&acl, &seen).expect("flow");
        }
        handler.unregister().expect("unregister");
        acl.finalize().expect("aclFinalize");
        let audit = sim::audit();
        assert!(audit.leaks.is_empty(), "{device_mode}: {:?}", audit.leaks);
    }
}
