//! IPC events through the safe API (`Event::ipc_handle`,
//! `Context::open_ipc_event`, `Stream::wait_ipc_event`,
//! `Lane::wait_ipc_event`): the opened event orders the waiting stream
//! after the exporter's record; it is closed on drop, also with a wait on
//! it still queued; chips without IPC events answer NotSupported. Both run
//! modes, both chip profiles, audit clean.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aclrt::sim;
use aclrt::{Acl, Context, ErrorKind, ExIpc, IpcEventKey, Result, RunMode, make_guard};
use common::*;

fn each_mode(
    soc: sim::Soc,
    f: impl for<'id> Fn(&Context<'_, 'id, aclrt::HostMode>) -> Result<()> + Copy,
    g: impl for<'id> Fn(&Context<'_, 'id, aclrt::DeviceMode>) -> Result<()> + Copy,
) {
    for device_mode in [false, true] {
        let base = if device_mode {
            device_config()
        } else {
            host_config()
        };
        let _sim = take(sim::SimConfig { soc, ..base });
        let acl = Acl::init().expect("aclInit");
        if device_mode {
            with_ctx(&acl, g).expect("flow (device run mode)");
        } else {
            with_ctx(&acl, f).expect("flow (host run mode)");
        }
        acl.finalize().expect("aclFinalize");
        assert_clean();
    }
}

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

/// The exporter records after slow work; the key travels as bytes; the
/// opened event makes another stream wait for that work.
fn export_open_wait<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let event = ctx.create_event_of::<ExIpc>()?;
    let bytes = event.ipc_handle()?.key().to_bytes();
    // What another process would do with the bytes it received.
    let opened = ctx.open_ipc_event(&IpcEventKey::from_bytes(bytes))?;
    let done = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(AtomicBool::new(false));
    let d = done.clone();
    a.launch_host_fn(move || {
        std::thread::sleep(Duration::from_millis(30));
        d.store(true, Ordering::SeqCst);
    })?;
    let event = a.record(event)?;
    b.wait_ipc_event(&opened)?;
    let (d, s) = (done.clone(), seen.clone());
    b.launch_host_fn(move || s.store(d.load(Ordering::SeqCst), Ordering::SeqCst))?;
    b.synchronize()?;
    assert!(
        seen.load(Ordering::SeqCst),
        "the wait did not order the streams"
    );
    // In a scope: the lane waits for the exporter's last record.
    let mut buf = ctx.alloc::<u8>(16)?;
    let event = a.record(event)?;
    ctx.scope(|s| {
        make_guard!(gb);
        let lb = s.lane(&b, gb);
        lb.wait_ipc_event(&opened)?;
        lb.memset(&mut buf, 4)?.wait().map(drop)
    })?;
    let mut h = [0u8; 16];
    ctx.copy(&buf, &mut h[..])?;
    assert_eq!(h, [4; 16]);
    a.synchronize()?;
    drop(opened);
    drop(event);
    a.destroy()?;
    b.destroy()
}

#[test]
fn an_opened_ipc_event_orders_the_waiting_stream() {
    each_mode(sim::Soc::Ascend910B, export_open_wait, export_open_wait);
}

/// Dropping the opened event while a wait on it is queued (behind a record
/// that has not run) closes it only once the wait retired: no use after
/// close, the stream's work runs, the audit is clean.
fn close_with_wait_queued<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let (a, b) = (ctx.create_stream()?, ctx.create_stream()?);
    let gate = HeldGate::new();
    let event = ctx.create_event_of::<ExIpc>()?;
    let key = event.ipc_handle()?.key();
    let opened = ctx.open_ipc_event(&key)?;
    a.launch_host_fn(gate.body())?;
    let event = a.record(event)?;
    b.wait_ipc_event(&opened)?;
    drop(opened);
    gate.open();
    b.synchronize()?;
    a.synchronize()?;
    drop(event);
    a.destroy()?;
    b.destroy()
}

#[test]
fn an_opened_ipc_event_dropped_under_a_queued_wait_is_closed_after_it() {
    each_mode(
        sim::Soc::Ascend910B,
        close_with_wait_queued,
        close_with_wait_queued,
    );
}

/// A key naming no exported event is the runtime's error.
fn bad_key<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let e = ctx
        .open_ipc_event(&IpcEventKey::from_bytes([7; 64]))
        .expect_err("a key naming nothing opened");
    assert_eq!(e.kind(), ErrorKind::InvalidParam, "{e:?}");
    Ok(())
}

#[test]
fn a_key_naming_no_event_is_refused() {
    each_mode(sim::Soc::Ascend910B, bad_key, bad_key);
}

/// The 310P has no IPC events: the event's creation, and the opening of a
/// key, answer 207000.
fn no_ipc_events<M: RunMode>(ctx: &Context<'_, '_, M>) -> Result<()> {
    let e = ctx
        .create_event_of::<ExIpc>()
        .expect_err("an IPC event on the 310P");
    assert_eq!(e.kind(), ErrorKind::NotSupported, "{e:?}");
    let e = ctx
        .open_ipc_event(&IpcEventKey::from_bytes([0; 64]))
        .expect_err("opened on the 310P");
    assert_eq!(e.kind(), ErrorKind::NotSupported, "{e:?}");
    Ok(())
}

#[test]
fn chips_without_ipc_events_answer_not_supported() {
    each_mode(sim::Soc::Ascend310P, no_ipc_events, no_ipc_events);
}
