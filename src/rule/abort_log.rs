//! The protocol core of the escalations' log of aborted streams
//! (`scope::open`, model-checked): whether a record of a user
//! event, queued on a stream, may have been discarded by an escalation.
//!
//! A wait for a record that an abort discarded never ends (acl-facts K.8),
//! so a wait is refused when its record may be discarded and has not
//! executed. The argument, with `done` the number of finished escalations:
//! * a record takes a [`ticket`] (`done` as it is) *before* it is queued;
//! * an escalation, once every abort of it has returned, takes the next
//!   number `n` (a read-modify-write of `done`) and logs `(n, stream)` for
//!   each stream it aborted ([`AbortLog::done`]).
//!
//! A record an abort discarded was queued before that abort returned, so
//! its ticket was taken before the escalation's number, and is at most
//! `n`: [`AbortLog::may_have_discarded`] answers yes for any logged `n` at
//! least the ticket on the record's stream. While the escalation is still
//! aborting, its streams' records say so instead (both
//! are read under the registry's lock). The log is bounded: entries that
//! fall off raise a floor, below which any ticket may have been discarded.
#![deny(unsafe_code)]

use super::sync::{AtomicU64, Ordering, mutant};

/// The ticket of a record about to be queued (the number of escalations
/// finished so far).
#[inline]
pub(crate) fn ticket(done: &AtomicU64) -> u64 {
    done.load(Ordering::SeqCst)
}

/// Streams `S` (with their contexts) that finished escalations aborted,
/// numbered; kept up to a bound.
pub(crate) struct AbortLog<S> {
    /// (escalation number, stream, context).
    entries: Vec<(u64, S, S)>,
    /// Any ticket below it may have been discarded (entries cut off).
    floor: u64,
}

impl<S: Copy + PartialEq> AbortLog<S> {
    /// An empty log.
    pub(crate) const fn new() -> AbortLog<S> {
        AbortLog {
            entries: Vec::new(),
            floor: 0,
        }
    }

    /// An escalation is done with `streams` (every abort of it returned):
    /// log them under its number, taken from `done`; keep at most `kept`
    /// entries. Returns the number.
    pub(crate) fn done(&mut self, done: &AtomicU64, streams: &[(S, S)], kept: usize) -> u64 {
        let n = done.fetch_add(1, Ordering::SeqCst);
        self.entries
            .extend(streams.iter().map(|&(stream, ctx)| (n, stream, ctx)));
        if self.entries.len() > kept {
            let cut = self.entries.len() - kept;
            let off = if mutant("abortlog-floor-off-by-one") {
                0
            } else {
                1
            };
            let floor = self.entries[cut - 1].0 + off;
            self.entries.drain(..cut);
            self.floor = self.floor.max(floor);
        }
        n
    }

    /// Whether a finished escalation may have discarded a record queued on
    /// `stream` with `ticket`.
    pub(crate) fn may_have_discarded(&self, stream: S, ticket: u64) -> bool {
        let strict = mutant("abortlog-strict");
        ticket < self.floor
            || self
                .entries
                .iter()
                .any(|&(n, s, _)| s == stream && (n > ticket || (!strict && n == ticket)))
    }

    /// Whether a finished escalation may have discarded a record of
    /// context `ctx` whose stream is not known.
    pub(crate) fn may_have_discarded_in(&self, ctx: S) -> bool {
        self.floor > 0 || self.entries.iter().any(|&(_, _, c)| c == ctx)
    }
}
