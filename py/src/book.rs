//! The Pythonic layer's record of queued work, kept here
//! ([`crate::protocol::work_book`]): which buffers each stream's queued work
//! uses, and each event's mark. The waits and records that read or move a
//! mark are made here too, each with its mark taken in the same call as the
//! runtime's (the mark of a wait before the wait, that of a record before
//! the record), so no Python code (another thread, a signal handler, a
//! profile hook) can come between them.
//!
//! The calls that wait release the GIL (`crate::gil::blocking`); the book's
//! lock is never held across a runtime call or Python code.
#![deny(unsafe_code)]

use crate::ffi;
use crate::handle::{Handle, UseGuard};
use crate::memory::{BOOK, Memory, busy, forked};
use crate::protocol::work_book::Forked;
use pyo3::prelude::*;

/// Settled uses, dropped here (outside the book's lock, GIL held).
fn drop_settled(r: Result<Vec<Py<Memory>>, Forked>) -> PyResult<()> {
    drop(r.map_err(forked)?);
    Ok(())
}

/// `_sync_stream(ctx, stream) -> ret`: `acl.rt.synchronize_stream` (GIL
/// released) in `ctx`; on success the work booked on the stream before the
/// wait began is settled.
#[pyfunction]
pub fn _sync_stream(
    py: Python<'_>,
    ctx: &Bound<'_, Handle>,
    stream: &Bound<'_, Handle>,
) -> PyResult<i32> {
    crate::fork::check()?;
    let c = UseGuard::new(ctx.get())?;
    let s = UseGuard::new(stream.get())?;
    let ret = c.bind()?;
    if ret != 0 {
        return Ok(ret);
    }
    crate::callback::refuse_wait_served("stream.synchronize()", s.value)?;
    let upto = BOOK.point(false, s.serial()).map_err(forked)?;
    let v = s.value;
    let ret = crate::gil::blocking(py, move || ffi::synchronize_stream(v));
    if ret == 0 {
        drop_settled(BOOK.settle(crate::fork::forked(), s.serial(), Some(upto), busy))?;
    }
    Ok(ret)
}

/// `_sync_device(ctx, streams) -> ret`: `acl.rt.synchronize_device` (GIL
/// released) in `ctx`; on success the work booked on each of `streams`
/// before the wait began is settled.
#[pyfunction]
pub fn _sync_device(
    py: Python<'_>,
    ctx: &Bound<'_, Handle>,
    streams: Vec<Bound<'_, Handle>>,
) -> PyResult<i32> {
    crate::fork::check()?;
    let c = UseGuard::new(ctx.get())?;
    let ret = c.bind()?;
    if ret != 0 {
        return Ok(ret);
    }
    let mut points = Vec::with_capacity(streams.len());
    for s in &streams {
        let serial = s.get().serial();
        points.push((serial, BOOK.point(false, serial).map_err(forked)?));
    }
    let ret = crate::gil::blocking(py, ffi::synchronize_device);
    if ret == 0 {
        for (serial, upto) in points {
            drop_settled(BOOK.settle(crate::fork::forked(), serial, Some(upto), busy))?;
        }
    }
    Ok(ret)
}

/// `_forget_stream(stream)`: the stream's queued work is done (its release
/// synchronised it): every use it booked is settled.
#[pyfunction]
pub fn _forget_stream(stream: &Bound<'_, Handle>) -> PyResult<()> {
    drop_settled(BOOK.forget_stream(crate::fork::forked(), stream.get().serial(), busy))
}

/// `_forget_event(event)`: the event is destroyed.
#[pyfunction]
pub fn _forget_event(event: &Bound<'_, Handle>) -> PyResult<()> {
    BOOK.forget_event(crate::fork::forked(), event.get().serial())
        .map_err(forked)
}

/// `_record(ctx, stream, event) -> ret`: `acl.rt.record_event` (GIL
/// released: the queueing may wait) in `ctx`; the event's mark becomes the
/// work booked on the stream before the record began, unless another
/// record of the event raced this one (then it has none).
#[pyfunction]
pub fn _record(
    py: Python<'_>,
    ctx: &Bound<'_, Handle>,
    stream: &Bound<'_, Handle>,
    event: &Bound<'_, Handle>,
) -> PyResult<i32> {
    crate::fork::check()?;
    let c = UseGuard::new(ctx.get())?;
    let s = UseGuard::new(stream.get())?;
    let e = UseGuard::new(event.get())?;
    let ret = c.bind()?;
    if ret != 0 {
        return Ok(ret);
    }
    let t = BOOK
        .record_begin(false, e.serial(), s.serial())
        .map_err(forked)?;
    let (ev, st) = (e.value, s.value);
    let ret = crate::gil::blocking(py, move || ffi::record_event(ev, st));
    BOOK.record_end(e.serial(), t, ret == 0);
    if ret == 0 {
        crate::callback::recorded(ev, st);
    }
    Ok(ret)
}

/// `_recorded_on(event) -> stream serial or None`: the stream whose work
/// the event's last record covers, when known.
#[pyfunction]
pub fn _recorded_on(event: &Bound<'_, Handle>) -> PyResult<Option<u64>> {
    BOOK.recorded_on(crate::fork::forked(), event.get().serial())
        .map_err(forked)
}

/// `_sync_event(ctx, event) -> ret`: `acl.rt.synchronize_event` (GIL
/// released) in `ctx`; on success the work of the mark taken before the
/// wait is settled (nothing if the event was recorded again meanwhile).
#[pyfunction]
pub fn _sync_event(
    py: Python<'_>,
    ctx: &Bound<'_, Handle>,
    event: &Bound<'_, Handle>,
) -> PyResult<i32> {
    crate::fork::check()?;
    let c = UseGuard::new(ctx.get())?;
    let e = UseGuard::new(event.get())?;
    let ret = c.bind()?;
    if ret != 0 {
        return Ok(ret);
    }
    if let Some(s) = crate::callback::stream_of_event(e.value)
        && ffi::query_event_status(e.value) != (1, 0)
    // not complete yet
    {
        crate::callback::refuse_wait_served("event.synchronize()", s)?;
    }
    let t = BOOK.wait_begin(false, e.serial()).map_err(forked)?;
    let v = e.value;
    let ret = crate::gil::blocking(py, move || ffi::synchronize_event(v));
    if ret == 0 {
        drop_settled(BOOK.wait_end(crate::fork::forked(), e.serial(), t, busy))?;
    }
    Ok(ret)
}

/// `_query_event(ctx, event) -> (complete, ret)`:
/// `acl.rt.query_event_status` in `ctx`; when complete, as after
/// `_sync_event`, the work of the mark taken before the query is settled.
#[pyfunction]
pub fn _query_event(ctx: &Bound<'_, Handle>, event: &Bound<'_, Handle>) -> PyResult<(bool, i32)> {
    const COMPLETE: u32 = 1; // ACL_EVENT_RECORDED_STATUS_COMPLETE
    crate::fork::check()?;
    let c = UseGuard::new(ctx.get())?;
    let e = UseGuard::new(event.get())?;
    let ret = c.bind()?;
    if ret != 0 {
        return Ok((false, ret));
    }
    let t = BOOK.wait_begin(false, e.serial()).map_err(forked)?;
    let (status, ret) = ffi::query_event_status(e.value);
    let done = ret == 0 && status == COMPLETE;
    if done {
        drop_settled(BOOK.wait_end(crate::fork::forked(), e.serial(), t, busy))?;
    }
    Ok((done, ret))
}
