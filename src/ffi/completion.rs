//! Awaited completions, the basement's side: what a future waits for
//! ([`Watch`], its [`Target`]s), asked by the service thread
//! (`rule::completion`, which holds the watches, wakes the futures and never
//! calls the runtime itself) through [`Probe::is_ready`]: runtime queries
//! only (`aclrtStreamQuery`, `aclrtQueryEventStatus`), made with the watch's
//! context current. The destroy paths call [`handle_gone`] before the
//! runtime call, so the service never queries a handle that is gone.
//!
//! Bookkeeping with no `unsafe`: the queries go through the safe wrappers
//! of `ffi`.
#![deny(unsafe_code)]

use std::time::Instant;

use super::Raw;
use crate::rule::completion::{Probe, Service};

/// A future's registered interest in a completion (`rule::completion`).
pub(crate) type Interest = crate::rule::completion::Interest<Watch>;

/// The one service of the crate's watches.
static SERVICE: Service<Watch> = Service::new();

/// What a watch waits for.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target {
    /// The stream is idle (`aclrtStreamQuery`).
    Stream(Raw),
    /// The event's record completed (`aclrtQueryEventStatus`), or the
    /// predicate (the caller's: `scope::record_discarded`) says an
    /// escalation discarded it (it never will).
    Event(Raw, fn(Raw) -> bool),
    /// The event completed, or its stream is idle (an abort discarded the
    /// record with the rest of the stream's work).
    EventOrStream(Raw, Raw),
    /// The time has come.
    Deadline(Instant),
}

impl Target {
    fn names(&self, handle: Raw) -> bool {
        match *self {
            Target::Stream(s) | Target::Event(s, _) => s == handle,
            Target::EventOrStream(e, s) => e == handle || s == handle,
            Target::Deadline(_) => false,
        }
    }
}

/// What a future waits for: every target complete.
#[derive(Debug)]
pub(crate) struct Watch {
    /// The context made current on the service thread for the queries.
    ctx: Option<Raw>,
    /// The scope that registered it (0: none).
    scope: u64,
    targets: Vec<Target>,
}

impl Watch {
    /// A watch of `targets`, queried with `ctx` current, registered by the
    /// scope `scope` (0: outside scopes).
    pub(crate) fn new(ctx: Option<Raw>, scope: u64, targets: Vec<Target>) -> Watch {
        Watch {
            ctx,
            scope,
            targets,
        }
    }

    /// Whether every target is complete now (runtime queries, made with
    /// the watch's context current; a query that fails counts as complete:
    /// the future's checked wait then judges the work, so a query here
    /// enters nothing in the failure rule, whatever it answers).
    pub(crate) fn is_ready(&self, now: Instant) -> bool {
        if let Some(ctx) = self.ctx {
            if super::make_current(ctx).is_err() {
                return true;
            }
        }
        self.targets.iter().all(|t| match *t {
            Target::Stream(s) => super::stream_query(s).unwrap_or(true),
            Target::Event(e, discarded) => match super::event_is_complete(e) {
                Ok(true) | Err(_) => true,
                Ok(false) => discarded(e),
            },
            Target::EventOrStream(e, s) => {
                super::event_is_complete(e).unwrap_or(true)
                    || super::stream_query(s).unwrap_or(true)
            }
            Target::Deadline(at) => now >= at,
        })
    }

    fn deadline(&self) -> Option<Instant> {
        self.targets
            .iter()
            .filter_map(|t| match *t {
                Target::Deadline(at) => Some(at),
                _ => None,
            })
            .min()
    }

    fn names(&self, handle: Raw) -> bool {
        self.ctx == Some(handle) || self.targets.iter().any(|t| t.names(handle))
    }
}

impl Probe for Watch {
    fn service() -> &'static Service<Watch> {
        &SERVICE
    }

    fn is_ready(&self, now: Instant) -> bool {
        Watch::is_ready(self, now)
    }

    fn deadline(&self) -> Option<Instant> {
        Watch::deadline(self)
    }
}

/// `handle` (a stream, an event or a context) is about to be destroyed:
/// the service no longer queries it. Only a forgotten future can still
/// have a watch on it (a live one borrows its owner).
#[inline]
pub(crate) fn handle_gone(handle: Raw) {
    SERVICE.forget(|w| w.names(handle));
}

/// How many watches name `handle` (a test hook's).
pub(crate) fn watches_naming(handle: Raw) -> usize {
    SERVICE.count(|w| w.names(handle))
}

/// Every watch that names a handle (the runtime is being finalised: no
/// handle stays valid); a watch of a deadline only stays.
pub(crate) fn all_gone() {
    SERVICE
        .forget(|w| w.ctx.is_some() || w.targets.iter().any(|t| !matches!(t, Target::Deadline(_))));
}

/// The body of scope `scope` returned: the watches its futures left (they
/// were forgotten) are given up before its end synchronises and releases
/// what they name.
#[inline]
pub(crate) fn scope_done(scope: u64) {
    if scope != 0 {
        SERVICE.forget(|w| w.scope == scope);
    }
}

/// Calls [`scope_done`] when dropped (at the end of a scope's body, also
/// on a panic).
pub(crate) struct ScopeDone(pub(crate) u64);

impl Drop for ScopeDone {
    #[inline]
    fn drop(&mut self) {
        scope_done(self.0);
    }
}
