//! The protocol core of the streams' records (`ffi::record`, model-checked
//! in `models/src/records_model.rs`): one record per stream, made with it,
//! taken out whole by its destruction once no context synchronisation is
//! using the handle, put back whole if the runtime refuses the
//! destruction, released with a default stream's context.
//!
//! The argument: a context synchronisation reaches a stream only through
//! [`Records::each_stream_of`], which counts itself on the record
//! (`syncing`) under the lock before it lets go of it and uses the handle;
//! [`Records::destroying`] takes the record out only while that count is
//! zero, under the same lock, and the handle is destroyed only after. So
//! no pass uses a handle after (or while) it is destroyed, and a pass that
//! starts after the record is out never finds the stream.
//!
//! The runtime's exception reports name a stream by its device and id, not
//! its handle: [`Records::pin_by_id`] resolves them through the records,
//! counting itself on the record found (`syncing`, as a pass does) until
//! [`Records::unpin`]; so a destroyed stream's id never resolves (its
//! record left with it), and a stream is not destroyed while a report
//! resolved to it is being entered. A record learns its stream's id the
//! first time a report needs it, not when it is made (a stream that never
//! fails never asks the runtime): the report counts itself on the record
//! while it asks, as a pass does, so the handle it asks about is alive.
#![deny(unsafe_code)]

use super::sync::{Mutex, Rank, lock, mutant, pause};

/// What the crate knows about one stream.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Record {
    stream: usize,
    ctx: usize,
    /// A context's default stream (synchronised by the context's own pass,
    /// released with the context).
    default: bool,
    /// How many context synchronisations are synchronising it now.
    syncing: u32,
    /// `aclrtLaunchHostFunc` succeeded on it.
    pub(crate) host_fn_used: bool,
    /// Subscribed (through the crate) to a reporter.
    pub(crate) subscribed: bool,
    /// An escalation's abort discarded work queued on it outside scopes.
    pub(crate) outside_aborted: bool,
    /// How many escalations are aborting it now ([`Records::abort_begins`]).
    aborting: u32,
    /// One more than the number of the latest finished escalation that
    /// aborted it ([`Records::abort_ends`]); 0: none did.
    last_abort: u64,
    /// The runtime's name of the stream in exception reports: its device
    /// and `aclrtStreamGetId`, once read (`None` if the runtime did not
    /// say).
    rt_id: Option<(i32, i32)>,
    /// Whether `rt_id` was read: with a default stream's record, else the
    /// first time a report needs it ([`Records::pin_by_id`]; a default
    /// stream's id that the runtime did not give then is never asked for
    /// again there).
    id_read: bool,
}

impl Record {
    /// The handle of the stream's context.
    pub(crate) fn context(&self) -> usize {
        self.ctx
    }

    fn new(stream: usize, ctx: usize, default: bool, rt_id: Option<(i32, i32)>) -> Record {
        Record {
            stream,
            ctx,
            default,
            syncing: 0,
            host_fn_used: false,
            subscribed: false,
            outside_aborted: false,
            aborting: 0,
            last_abort: 0,
            rt_id,
            id_read: rt_id.is_some(),
        }
    }
}

/// What [`Records::pin_by_id`] does next.
enum Step {
    /// The stream named, pinned.
    Found(usize),
    /// Read the id of this stream (of this context), pinned meanwhile.
    Read(usize, usize),
    /// No record names it.
    Nothing,
}

/// The records of every stream the crate made (keys: the streams' and
/// contexts' handles).
pub(crate) struct Records {
    all: Mutex<Vec<Record>>,
}

impl Records {
    /// No records, for a `static`.
    #[cfg(not(any(loom, shuttle)))]
    pub(crate) const fn new_static() -> Self {
        Records {
            all: Mutex::new(Vec::new()),
        }
    }

    /// No records.
    #[cfg(any(loom, shuttle))]
    pub(crate) fn new() -> Self {
        Records {
            all: Mutex::new(Vec::new()),
        }
    }

    #[inline]
    fn with<R>(&self, f: impl FnOnce(&mut Vec<Record>) -> R) -> R {
        f(&mut lock(&self.all, Rank::Streams))
    }

    /// Stream `stream` of context `ctx` was made (its runtime id is read
    /// when a report needs it).
    #[inline]
    pub(crate) fn made(&self, stream: usize, ctx: usize) {
        self.with(|r| r.push(Record::new(stream, ctx, false, None)));
    }

    /// The default stream `stream` of `ctx` was handed out: its record,
    /// made once (a record made by a mark gets its id).
    pub(crate) fn default_made(&self, stream: usize, ctx: usize, rt_id: Option<(i32, i32)>) {
        self.with(|r| match r.iter_mut().find(|e| e.stream == stream) {
            Some(e) => {
                if !e.id_read {
                    e.rt_id = rt_id;
                    e.id_read = true;
                }
            }
            None => r.push(Record::new(stream, ctx, true, rt_id)),
        });
    }

    /// The stream the runtime names `id` on `device`, if the crate holds
    /// its record: counted on the record (so it is not destroyed) until
    /// [`unpin`](Self::unpin). A stream whose destruction took its record
    /// out is never found.
    ///
    /// An explicit stream's record whose id was not read yet has it read by
    /// `read` (the stream's and its context's handles in, the device and id
    /// out), called with no lock held and the record counted meanwhile, so
    /// the handle is alive while `read` uses it; one at a time until the id
    /// is found or every explicit stream's id is known.
    pub(crate) fn pin_by_id(
        &self,
        device: i32,
        id: i32,
        mut read: impl FnMut(usize, usize) -> Option<(i32, i32)>,
    ) -> Option<usize> {
        let name = Some((device, id));
        loop {
            let step = self.with(|r| {
                if let Some(e) = r.iter_mut().find(|e| e.id_read && e.rt_id == name) {
                    if !mutant("records-id-uncounted") {
                        e.syncing += 1;
                    }
                    return Step::Found(e.stream);
                }
                // Explicit streams only: a default stream's record read its
                // id when it was made, and is released with its context
                // without waiting for a count.
                match r.iter_mut().find(|e| !e.id_read && !e.default) {
                    Some(e) => {
                        if !mutant("records-id-read-uncounted") {
                            e.syncing += 1;
                        }
                        Step::Read(e.stream, e.ctx)
                    }
                    None => Step::Nothing,
                }
            });
            let (stream, ctx) = match step {
                Step::Found(stream) => return Some(stream),
                Step::Nothing => return None,
                Step::Read(stream, ctx) => (stream, ctx),
            };
            let rt_id = read(stream, ctx);
            let found = self.with(|r| {
                // Counted: its destruction has not taken it out.
                let e = r.iter_mut().find(|e| e.stream == stream)?;
                e.rt_id = rt_id;
                e.id_read = true;
                if rt_id == name {
                    // Stays counted until `unpin`.
                    return Some(stream);
                }
                e.syncing = e.syncing.saturating_sub(1);
                None
            });
            if found.is_some() {
                return found;
            }
        }
    }

    /// The runtime's (device, id) of the live stream `stream` (the caller
    /// keeps it alive), read by `read` (as in [`pin_by_id`](Self::pin_by_id))
    /// if no report has needed it yet; `None` without a record.
    pub(crate) fn runtime_id(
        &self,
        stream: usize,
        read: impl FnOnce(usize, usize) -> Option<(i32, i32)>,
    ) -> Option<(i32, i32)> {
        let (ctx, known) = self.read(stream, |e| (e.ctx, e.id_read.then_some(e.rt_id)))?;
        if let Some(rt_id) = known {
            return rt_id;
        }
        let rt_id = read(stream, ctx);
        self.update(stream, |e| {
            if !e.id_read {
                e.rt_id = rt_id;
                e.id_read = true;
            }
        });
        rt_id
    }

    /// The use of `stream` that [`pin_by_id`](Self::pin_by_id) counted is
    /// over.
    pub(crate) fn unpin(&self, stream: usize) {
        self.with(|r| {
            if let Some(e) = r.iter_mut().find(|e| e.stream == stream) {
                e.syncing = e.syncing.saturating_sub(1);
            }
        });
    }

    /// Run `f` on the record of `stream`, if there is one (a stream being
    /// destroyed has none: an unsubscription racing its destruction).
    pub(crate) fn update<R>(&self, stream: usize, f: impl FnOnce(&mut Record) -> R) -> Option<R> {
        self.with(|r| r.iter_mut().find(|e| e.stream == stream).map(f))
    }

    /// Set a mark on the record of the live stream `stream` with `f`; one
    /// is made (with no context, like a default stream's) if there is
    /// none, so that no mark is lost.
    pub(crate) fn mark<R>(&self, stream: usize, f: impl FnOnce(&mut Record) -> R) -> R {
        self.with(|r| f(mark_in(r, stream)))
    }

    /// `f` of the record of `stream`; `None` without one.
    pub(crate) fn read<R>(&self, stream: usize, f: impl FnOnce(&Record) -> R) -> Option<R> {
        self.with(|r| r.iter().find(|e| e.stream == stream).map(f))
    }

    /// `stream` is about to be destroyed: its record is taken out once no
    /// context synchronisation is using the handle; give it back with
    /// [`restore`](Self::restore) if the destruction fails.
    #[inline]
    pub(crate) fn destroying(&self, stream: usize) -> Option<Record> {
        {
            // No pass is using it (the common case): out at once.
            let mut r = lock(&self.all, Rank::Streams);
            match r.iter().position(|e| e.stream == stream) {
                Some(i) if r[i].syncing == 0 || mutant("records-destroy-while-syncing") => {
                    return Some(r.swap_remove(i));
                }
                Some(_) => {}
                None => return None,
            }
        }
        self.destroying_slow(stream)
    }

    #[cold]
    #[inline(never)]
    fn destroying_slow(&self, stream: usize) -> Option<Record> {
        loop {
            let taken = self.with(|r| match r.iter().position(|e| e.stream == stream) {
                Some(i) if r[i].syncing == 0 || mutant("records-destroy-while-syncing") => {
                    Some(Some(r.swap_remove(i)))
                }
                Some(_) => None,
                None => Some(None),
            });
            match taken {
                Some(rec) => return rec,
                None => pause(),
            }
        }
    }

    /// An escalation is about to abort `streams`: marked until
    /// [`abort_ends`](Self::abort_ends), so that [`aborted_since`](Self::aborted_since)
    /// answers yes meanwhile.
    pub(crate) fn abort_begins(&self, streams: &[usize]) {
        if mutant("records-abort-unmarked") {
            return;
        }
        self.with(|r| {
            for &s in streams {
                mark_in(r, s).aborting += 1;
            }
        });
    }

    /// Every abort of the escalation numbered `n` (its number taken once
    /// they all returned) of `streams` has returned.
    pub(crate) fn abort_ends(&self, streams: &[usize], n: u64) {
        self.with(|r| {
            for &s in streams {
                if let Some(e) = r.iter_mut().find(|e| e.stream == s) {
                    e.aborting = e.aborting.saturating_sub(1);
                    if !mutant("records-abort-end-forgets") {
                        e.last_abort = e.last_abort.max(n + 1);
                    }
                }
            }
        });
    }

    /// Whether an escalation may have discarded work queued on `stream`
    /// after a ticket `ticket` was taken (the number of escalations
    /// finished then): one is aborting it now, or one that finished with a
    /// number at least `ticket` aborted it. Work an abort discarded was
    /// queued before the abort returned, so its ticket, taken before it was
    /// queued, is at most the escalation's number, taken after.
    pub(crate) fn aborted_since(&self, stream: usize, ticket: u64) -> bool {
        // The number `n` is at least `ticket`: `n + 1 > ticket`.
        let at_least = if mutant("records-abort-strict") {
            ticket.saturating_add(1)
        } else {
            ticket
        };
        self.read(stream, |e| e.aborting > 0 || e.last_abort > at_least)
            .unwrap_or(false)
    }

    /// Whether an escalation is aborting `stream` now.
    pub(crate) fn is_aborting(&self, stream: usize) -> bool {
        self.read(stream, |e| e.aborting > 0).unwrap_or(false)
    }

    /// The runtime refused to destroy the stream of `rec`: it is alive,
    /// and its record comes back whole.
    pub(crate) fn restore(&self, rec: Option<Record>) {
        if let Some(mut rec) = rec {
            if mutant("records-restore-fresh") {
                rec = Record::new(rec.stream, rec.ctx, rec.default, rec.rt_id);
            }
            self.with(|r| r.push(rec));
        }
    }

    /// The runtime released `stream` (a default stream with its context).
    pub(crate) fn released(&self, stream: usize) {
        self.with(|r| r.retain(|e| e.stream != stream));
    }

    /// Forget every record (the runtime was finalised or re-initialised).
    pub(crate) fn clear(&self) {
        self.with(Vec::clear);
    }

    /// Call `f` with each explicit stream of context `ctx` (made during the
    /// pass too), one at a time, each counted on its record while `f` runs
    /// (so it is not destroyed meanwhile); stops when `f` says so.
    pub(crate) fn each_stream_of(&self, ctx: usize, mut f: impl FnMut(usize) -> bool) {
        let mut done = Vec::new();
        loop {
            let next = self.with(|r| {
                let e = r
                    .iter_mut()
                    .find(|e| e.ctx == ctx && !e.default && !done.contains(&e.stream));
                e.map(|e| {
                    if !mutant("records-pass-uncounted") {
                        e.syncing += 1;
                    }
                    e.stream
                })
            });
            let Some(stream) = next else { return };
            done.push(stream);
            let go_on = f(stream);
            self.with(|r| {
                if let Some(e) = r.iter_mut().find(|e| e.stream == stream) {
                    e.syncing = e.syncing.saturating_sub(1);
                }
            });
            if !go_on {
                return;
            }
        }
    }
}

/// The record of `stream` in `r`, made (with no context, like a default
/// stream's) if there is none.
fn mark_in(r: &mut Vec<Record>, stream: usize) -> &mut Record {
    let i = match r.iter().position(|e| e.stream == stream) {
        Some(i) => i,
        None => {
            r.push(Record::new(stream, 0, true, None));
            r.len() - 1
        }
    };
    &mut r[i]
}
