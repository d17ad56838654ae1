//! The protocol core of the Pythonic layer's record of queued work: which
//! buffers the work queued on each stream uses, up to which point a
//! synchronisation proves that work done, and each event's *mark* (the
//! stream and the point its last record covers).
//!
//! Every decision is one critical section of the book's mutex, and no
//! caller code runs inside one except `busy`, the caller's flag setter
//! (a plain store under the buffer's own lock: lock order book → buffer):
//!
//! * a use is booked after the runtime queued the work
//!   ([`WorkBook::queued`]), with the next point of its stream; the buffer
//!   is marked busy in the same step (the caller holds the buffer against a
//!   free from before the runtime call to after the booking);
//! * a stream's synchronisation takes its point *before* the runtime wait
//!   ([`WorkBook::point`]) and settles only the uses up to it afterwards
//!   ([`WorkBook::settle`]): work booked meanwhile stays;
//! * an event's record takes a ticket before the runtime call
//!   ([`WorkBook::record_begin`]) and sets the mark after it
//!   ([`WorkBook::record_end`]) only when no other record of the event
//!   overlapped it (racing records leave no mark: the runtime's order of
//!   the two is unknown) and none began since;
//! * an event's wait takes its mark *before* the runtime wait
//!   ([`WorkBook::wait_begin`]) and settles that mark's work afterwards
//!   ([`WorkBook::wait_end`]) only when no record of the event began in
//!   between, so a re-record (another thread, a signal handler, a profile
//!   hook) never settles work the wait did not cover.
//!
//! Entry points a forked child can reach check `forked` *before* the lock:
//! the lock may have been held by a thread that does not exist in the
//! child.
//!
//! `B` is what a use holds (the buffer; returned, never dropped, under the
//! lock, so a caller's destructor never runs inside it). Streams, buffers
//! and events are named by `u64` ids the caller gives.
#![deny(unsafe_code)]

use super::sync::{Mutex, MutexGuard, mutant};
use std::collections::HashMap;

/// A stream's log: its last point and the uses not yet settled.
struct Log<B> {
    /// The point of the last use booked (0: none yet).
    seq: u64,
    /// Buffer id → (the point of its last use here, the buffer).
    pending: HashMap<u64, (u64, B)>,
}

/// An event's record state.
#[derive(Clone, Copy, Default)]
struct Mark {
    /// Records begun so far.
    records: u64,
    /// Records begun and not ended.
    inflight: u32,
    /// The records up to this count overlapped another record of the
    /// event (begun while one was in flight, or in flight when one began):
    /// the runtime's order of the two is unknown, so none of them leaves a
    /// mark.
    raced: u64,
    /// The stream and point the last record covers, when known.
    at: Option<(u64, u64)>,
}

/// What an event's record began with ([`WorkBook::record_begin`]).
#[derive(Clone, Copy, Debug)]
pub struct RecordTicket {
    records: u64,
    stream: u64,
    seq: u64,
}

/// What an event's wait began with ([`WorkBook::wait_begin`]).
#[derive(Clone, Copy, Debug)]
pub struct WaitTicket {
    records: u64,
    at: Option<(u64, u64)>,
}

/// Refused: the process is a forked child (its lock may never be released).
#[derive(Debug, PartialEq, Eq)]
pub struct Forked;

struct Inner<B> {
    streams: HashMap<u64, Log<B>>,
    /// Buffer id → the number of streams with a pending use of it.
    uses: HashMap<u64, usize>,
    events: HashMap<u64, Mark>,
}

/// The record of queued work of one process.
pub struct WorkBook<B> {
    inner: Mutex<Inner<B>>,
}

impl<B> Default for WorkBook<B> {
    fn default() -> Self {
        Self::new()
    }
}

impl<B> WorkBook<B> {
    /// An empty book.
    pub fn new() -> Self {
        WorkBook {
            inner: Mutex::new(Inner {
                streams: HashMap::new(),
                uses: HashMap::new(),
                events: HashMap::new(),
            }),
        }
    }

    fn lock(&self, forked: bool) -> Result<MutexGuard<'_, Inner<B>>, Forked> {
        if forked && !mutant("book-fork-check-after-lock") {
            return Err(Forked);
        }
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if forked {
            return Err(Forked);
        }
        Ok(g)
    }

    /// Books the uses of `bufs` by work just queued on `stream` (the
    /// runtime accepted it); each buffer newly used is marked busy
    /// (`busy(buf, true)`). Returns the point of the work.
    pub fn queued(
        &self,
        forked: bool,
        stream: u64,
        bufs: impl IntoIterator<Item = (u64, B)>,
        mut busy: impl FnMut(&B, bool),
    ) -> Result<u64, Forked> {
        let mut g = self.lock(forked)?;
        let g = &mut *g;
        let log = g.streams.entry(stream).or_insert_with(|| Log {
            seq: 0,
            pending: HashMap::new(),
        });
        log.seq += 1;
        let seq = log.seq;
        for (id, buf) in bufs {
            match log.pending.insert(id, (seq, buf)) {
                Some(_) => {}
                None => {
                    let n = g.uses.entry(id).or_insert(0);
                    *n += 1;
                    if *n == 1 {
                        let (_, b) = &log.pending[&id];
                        busy(b, true);
                    }
                }
            }
        }
        Ok(seq)
    }

    /// The point up to which a synchronisation of `stream` that begins now
    /// proves the work done.
    pub fn point(&self, forked: bool, stream: u64) -> Result<u64, Forked> {
        let g = self.lock(forked)?;
        Ok(g.streams.get(&stream).map_or(0, |l| l.seq))
    }

    /// Settles the uses of `stream` up to point `upto` (all, with `None`):
    /// their work is done. Buffers no stream uses any more are marked idle
    /// (`busy(buf, false)`); the settled uses are returned (to be dropped
    /// by the caller, outside the lock).
    pub fn settle(
        &self,
        forked: bool,
        stream: u64,
        upto: Option<u64>,
        busy: impl FnMut(&B, bool),
    ) -> Result<Vec<B>, Forked> {
        let mut g = self.lock(forked)?;
        Ok(settle_locked(&mut g, stream, upto, busy))
    }

    /// Forgets `stream` (destroyed after a full synchronisation): settles
    /// all its uses.
    pub fn forget_stream(
        &self,
        forked: bool,
        stream: u64,
        busy: impl FnMut(&B, bool),
    ) -> Result<Vec<B>, Forked> {
        let mut g = self.lock(forked)?;
        let out = settle_locked(&mut g, stream, None, busy);
        g.streams.remove(&stream);
        Ok(out)
    }

    /// Whether a stream has pending uses of buffer `buf` (it is busy).
    pub fn in_use(&self, forked: bool, buf: u64) -> Result<usize, Forked> {
        let g = self.lock(forked)?;
        Ok(g.uses.get(&buf).copied().unwrap_or(0))
    }

    /// A record of `event` on `stream` begins (before the runtime call):
    /// it covers the work booked on `stream` so far.
    pub fn record_begin(
        &self,
        forked: bool,
        event: u64,
        stream: u64,
    ) -> Result<RecordTicket, Forked> {
        let mut g = self.lock(forked)?;
        let seq = g.streams.get(&stream).map_or(0, |l| l.seq);
        let m = g.events.entry(event).or_default();
        m.records += 1;
        if m.inflight > 0 {
            m.raced = m.records;
        }
        m.inflight += 1;
        Ok(RecordTicket {
            records: m.records,
            stream,
            seq,
        })
    }

    /// The record of `t` ended (`ok`: the runtime accepted it). The mark is
    /// set only when this record overlapped no other record of the event
    /// and is the last one begun, with none in flight; otherwise (or on
    /// failure) the event has no known mark.
    pub fn record_end(&self, event: u64, t: RecordTicket, ok: bool) {
        // Reached only after record_begin succeeded: not in a forked child
        // of this call's process (the fork copies only the forking thread).
        let Ok(mut g) = self.lock(false) else { return };
        let m = g.events.entry(event).or_default();
        m.inflight = m.inflight.saturating_sub(1);
        let alone = t.records > m.raced || mutant("book-record-ignores-overlap");
        m.at = if ok && m.records == t.records && m.inflight == 0 && alone {
            Some((t.stream, t.seq))
        } else {
            None
        };
    }

    /// Whether `event` was recorded with a known mark.
    pub fn recorded_on(&self, forked: bool, event: u64) -> Result<Option<u64>, Forked> {
        let g = self.lock(forked)?;
        Ok(g.events.get(&event).and_then(|m| m.at).map(|(s, _)| s))
    }

    /// A wait for `event` begins (before the runtime wait): its mark now.
    pub fn wait_begin(&self, forked: bool, event: u64) -> Result<WaitTicket, Forked> {
        let g = self.lock(forked)?;
        let m = g.events.get(&event).copied().unwrap_or_default();
        Ok(WaitTicket {
            records: m.records,
            at: if m.inflight == 0 { m.at } else { None },
        })
    }

    /// The wait of `t` returned with the event complete: settles the work
    /// its mark covers, unless a record of the event began since
    /// (then the runtime may have waited for that record instead).
    pub fn wait_end(
        &self,
        forked: bool,
        event: u64,
        t: WaitTicket,
        busy: impl FnMut(&B, bool),
    ) -> Result<Vec<B>, Forked> {
        let mut g = self.lock(forked)?;
        let m = g.events.get(&event).copied().unwrap_or_default();
        let at = if mutant("book-mark-after-wait") {
            // The break: the mark read after the wait (a re-record in
            // between settles work the wait never covered).
            m.at
        } else if m.records == t.records {
            t.at
        } else {
            None
        };
        Ok(match at {
            Some((stream, seq)) => settle_locked(&mut g, stream, Some(seq), busy),
            None => Vec::new(),
        })
    }

    /// Forgets `event` (destroyed).
    pub fn forget_event(&self, forked: bool, event: u64) -> Result<(), Forked> {
        let mut g = self.lock(forked)?;
        g.events.remove(&event);
        Ok(())
    }
}

fn settle_locked<B>(
    g: &mut Inner<B>,
    stream: u64,
    upto: Option<u64>,
    mut busy: impl FnMut(&B, bool),
) -> Vec<B> {
    let mut out = Vec::new();
    let Some(log) = g.streams.get_mut(&stream) else {
        return out;
    };
    let done: Vec<u64> = log
        .pending
        .iter()
        .filter(|(_, (seq, _))| upto.is_none_or(|u| *seq <= u))
        .map(|(id, _)| *id)
        .collect();
    for id in done {
        let Some((_, buf)) = log.pending.remove(&id) else {
            continue;
        };
        let left = match g.uses.get_mut(&id) {
            Some(n) => {
                *n = n.saturating_sub(1);
                *n
            }
            None => 0,
        };
        if left == 0 {
            g.uses.remove(&id);
            busy(&buf, false);
        }
        out.push(buf);
    }
    out
}
