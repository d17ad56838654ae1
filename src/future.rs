//! Awaitable completions: a [`Future`] form of every wait.
//!
//! | blocking | awaited | future |
//! |---|---|---|
//! | [`InFlight::wait_or_keep`] | [`InFlight::wait_async`] | [`InFlightWait`] |
//! | [`Fence::wait_or_keep`] | [`Fence::wait_async`] | [`FenceWait`] |
//! | [`Fence::reuse_or_keep`] | [`Fence::reuse_async`] | [`FenceReuse`] |
//! | [`Lane::synchronize`] | [`Lane::synchronize_async`] | [`LaneSync`] |
//! | [`Scope::recover`] | [`Scope::recover_async`] | [`Recover`] |
//! | [`Stream::synchronize`] | [`Stream::synchronize_async`] | [`StreamSync`] |
//! | [`Event::synchronize`] | [`Event::synchronize_async`] | [`EventSync`] |
//!
//! (A [`Mark`](crate::Mark) or a [`Signal`](crate::Signal) has no host
//! wait: a lane waits for it on the device.)
//!
//! How they work: the first poll looks whether the work is over already
//! (runtime queries, no synchronisation). If not, for the next 20 µs each
//! poll queries again and asks to be polled again (`wake_by_ref`: the
//! executor runs its other tasks in between; short work such as a 4 KiB
//! copy is over within a microsecond, sooner than any thread could wake
//! the task). Then the future registers a watch with the crate's
//! completion service — one thread per process that queries the watched
//! streams and events, sleeping between rounds (20 µs at first, up to
//! 1 ms), and wakes the future's waker once when they are done. Polls
//! before that wake-up cost no runtime call (a lock and a flag). The
//! poll that follows the wake-up makes the blocking form's own call — the
//! same checked wait, the same give-back of the buffer — which returns at
//! once, the work being over. So an awaited wait reports exactly what the
//! blocking one would (never less), and no executor thread is blocked by
//! the crate while the work runs.
//!
//! Dropping or forgetting one of these futures only gives up interest: the
//! watch is removed (on drop, or when the scope's body returns, or when a
//! handle it names is destroyed) and its waker is never called after that.
//! The work, its memory and the scope are unaffected: the buffer an
//! [`InFlightWait`] held stays borrowed until the scope has synchronised,
//! as with a forgotten [`InFlight`].
//!
//! The futures of a scope ([`InFlightWait`], [`FenceWait`], [`FenceReuse`],
//! [`LaneSync`]) are neither `Send` nor `'static`: poll them on the scope's
//! thread, in an async body run to completion inside the scope's closure by
//! the executor of your choice (`block_on` of any runtime, or this module's
//! [`block_on`]). The *Async services* chapter of the guide shows the
//! patterns; [`crate::actor`] reaches a device from `'static` tasks.
//!
//! A wait that the completion service cannot serve (its thread could not
//! be started) is made as the blocking form would, at the first poll.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context as TaskContext, Poll};
use std::sync::Arc;
use std::task::Wake;
use std::time::{Duration, Instant};

use crate::error::{Result, WaitFailed};
use crate::event::{Event, EventKind, EventState, IsRecorded};
use crate::ffi::completion::{Interest, Target, Watch};
use crate::mode::RunMode;
use crate::scope::{Fence, InFlight, Lane, Scope};
use crate::stream::Stream;

/// How long after its first poll a future re-polls itself instead of
/// handing its watch to the completion service: the simulator's own
/// synchronisation watches for this long before it parks, and a short task
/// (a 4 KiB copy) is over within a microsecond, sooner than the service's
/// wake-up (two thread switches) would come.
const EARLY: Duration = Duration::from_micros(20);

/// The engine of every future here: the thing waited for (given to
/// `finish` once the watch is complete), when it was first polled, and the
/// registered interest.
struct Waiting<T> {
    item: Option<T>,
    /// The first poll's time, while the early phase lasts.
    early: Option<Instant>,
    interest: Option<Interest>,
}

impl<T> Waiting<T> {
    fn new(item: T) -> Self {
        Waiting {
            item: Some(item),
            early: None,
            interest: None,
        }
    }

    /// One poll: during the first [`EARLY`] after the first poll, each
    /// poll queries and, while the work runs, asks to be polled again
    /// (`wake_by_ref`: the executor runs its other tasks in between, and
    /// no thread blocks); after that, the watch goes to the completion
    /// service, and polls before its wake-up make no runtime call. Once
    /// the watch is complete, `finish` (the blocking form) runs.
    fn poll_with<O>(
        &mut self,
        cx: &mut TaskContext<'_>,
        watch: impl FnOnce(&T) -> Watch,
        finish: impl FnOnce(T) -> O,
    ) -> Poll<O> {
        if let Some(interest) = &self.interest {
            if !interest.poll(cx.waker()) {
                return Poll::Pending;
            }
            // Fired: the watch is over; its interest is given up.
            self.interest = None;
        }
        if crate::ffi::in_callback() || serving_thread() {
            // A host function's thread: the work may wait for this very
            // function, so nothing is watched; the blocking form answers at
            // once (a wait refuses there). A thread that serves host
            // functions likewise: the work may wait for one only this
            // thread runs, and the blocking form refuses (its served
            // stream) or serves while it waits (other work).
            let item = self
                .item
                .take()
                .expect("an aclrt future polled after it completed");
            return Poll::Ready(finish(item));
        }
        let item = self
            .item
            .as_ref()
            .expect("an aclrt future polled after it completed");
        let watch = watch(item);
        let now = Instant::now();
        if !watch.is_ready(now) {
            let first = *self.early.get_or_insert(now);
            if now.duration_since(first) < EARLY {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            if let Some(interest) = Interest::register(watch, cx.waker()) {
                self.interest = Some(interest);
                return Poll::Pending;
            }
            // No completion service: the blocking form, below.
        }
        let item = self.item.take().expect("checked above");
        Poll::Ready(finish(item))
    }
}

/// Whether the calling thread serves host functions
/// ([`Stream::serve_host_fns`](crate::Stream::serve_host_fns)).
fn serving_thread() -> bool {
    #[cfg(unix)]
    {
        crate::ffi::host_thread::serves_any()
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// The future of [`InFlight::wait_async`].
#[must_use = "futures do nothing unless polled"]
pub struct InFlightWait<'scope, 'sid, D: ?Sized> {
    w: Waiting<InFlight<'scope, 'sid, D>>,
}

impl<'scope, 'sid, D: ?Sized> Future for InFlightWait<'scope, 'sid, D> {
    type Output = core::result::Result<&'scope mut D, WaitFailed<InFlight<'scope, 'sid, D>>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        self.w
            .poll_with(cx, InFlight::watch, InFlight::wait_or_keep)
    }
}

impl<D: ?Sized> core::fmt::Debug for InFlightWait<'_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("InFlightWait")
            .field("item", &self.w.item)
            .field("registered", &self.w.interest.is_some())
            .finish()
    }
}

impl<'scope, 'sid, D: ?Sized> InFlight<'scope, 'sid, D> {
    /// The awaited form of [`wait_or_keep`](Self::wait_or_keep): resolves
    /// when the lane's work is over, with the buffer back for the rest of
    /// the scope — or, if the checked wait fails, the error and the buffer
    /// still in flight ([`WaitFailed`]; `?` turns it into the
    /// [`Error`](crate::Error)). Same checks, same result as the blocking
    /// form, which its last poll calls (it returns at once then).
    ///
    /// Dropping or forgetting the future gives up interest only: the buffer
    /// stays borrowed until the scope has synchronised.
    #[doc(alias = "aclrtSynchronizeStream")]
    #[doc(alias = "aclrtStreamQuery")]
    pub fn wait_async(self) -> InFlightWait<'scope, 'sid, D> {
        InFlightWait {
            w: Waiting::new(self),
        }
    }
}

/// The future of [`Fence::wait_async`].
#[must_use = "futures do nothing unless polled"]
pub struct FenceWait<'scope, 'sid, D: ?Sized> {
    w: Waiting<Fence<'scope, 'sid, D>>,
}

impl<'scope, 'sid, D: ?Sized> Future for FenceWait<'scope, 'sid, D> {
    type Output = core::result::Result<&'scope mut D, WaitFailed<Fence<'scope, 'sid, D>>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        self.w.poll_with(cx, Fence::watch_wait, Fence::wait_or_keep)
    }
}

impl<D: ?Sized> core::fmt::Debug for FenceWait<'_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FenceWait")
            .field("item", &self.w.item)
            .field("registered", &self.w.interest.is_some())
            .finish()
    }
}

/// The future of [`Fence::reuse_async`].
#[must_use = "futures do nothing unless polled"]
pub struct FenceReuse<'scope, 'sid, D: ?Sized> {
    w: Waiting<Fence<'scope, 'sid, D>>,
}

impl<'scope, 'sid, D: ?Sized> Future for FenceReuse<'scope, 'sid, D> {
    type Output = core::result::Result<&'scope mut D, WaitFailed<Fence<'scope, 'sid, D>>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        self.w
            .poll_with(cx, Fence::watch_reuse, Fence::reuse_or_keep)
    }
}

impl<D: ?Sized> core::fmt::Debug for FenceReuse<'_, '_, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FenceReuse")
            .field("item", &self.w.item)
            .field("registered", &self.w.interest.is_some())
            .finish()
    }
}

impl<'scope, 'sid, D: ?Sized> Fence<'scope, 'sid, D> {
    /// The awaited form of [`wait_or_keep`](Self::wait_or_keep) (a checked
    /// wait: the whole lane is waited for): resolves with the buffer back,
    /// or the error and the fence ([`WaitFailed`]).
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn wait_async(self) -> FenceWait<'scope, 'sid, D> {
        FenceWait {
            w: Waiting::new(self),
        }
    }

    /// The awaited form of [`reuse_or_keep`](Self::reuse_or_keep): resolves
    /// when the work before the fence is over (the event completed), with
    /// the buffer back whatever that work did, or the error and the fence.
    #[doc(alias = "aclrtSynchronizeEvent")]
    #[doc(alias = "aclrtQueryEventStatus")]
    pub fn reuse_async(self) -> FenceReuse<'scope, 'sid, D> {
        FenceReuse {
            w: Waiting::new(self),
        }
    }
}

/// The future of [`Lane::synchronize_async`].
#[must_use = "futures do nothing unless polled"]
pub struct LaneSync<'a, 'scope, 'env, 'id, 'sid, M: RunMode> {
    w: Waiting<&'a Lane<'scope, 'env, 'id, 'sid, M>>,
}

impl<M: RunMode> Future for LaneSync<'_, '_, '_, '_, '_, M> {
    type Output = Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Result<()>> {
        self.w.poll_with(cx, |l| l.watch(), |l| l.synchronize())
    }
}

impl<M: RunMode> core::fmt::Debug for LaneSync<'_, '_, '_, '_, '_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LaneSync")
            .field("lane", &self.w.item)
            .field("registered", &self.w.interest.is_some())
            .finish()
    }
}

impl<'scope, 'env, 'id, 'sid, M: RunMode> Lane<'scope, 'env, 'id, 'sid, M> {
    /// The awaited form of [`synchronize`](Self::synchronize): resolves
    /// when all work queued on this lane before the wait completes is done
    /// (then it synchronises, which returns at once). Buffers stay in
    /// flight.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn synchronize_async(&self) -> LaneSync<'_, 'scope, 'env, 'id, 'sid, M> {
        LaneSync {
            w: Waiting::new(self),
        }
    }
}

/// The future of [`Scope::recover_async`].
#[must_use = "futures do nothing unless polled"]
pub struct Recover<'a, 'scope, 'env, 'id, M: RunMode> {
    w: Waiting<&'a Scope<'scope, 'env, 'id, M>>,
}

impl<M: RunMode> Future for Recover<'_, '_, '_, '_, M> {
    type Output = Result<Option<crate::Error>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        self.w.poll_with(cx, |s| s.watch_all(), |s| s.recover())
    }
}

impl<M: RunMode> core::fmt::Debug for Recover<'_, '_, '_, '_, M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Recover")
            .field("scope", &self.w.item)
            .field("registered", &self.w.interest.is_some())
            .finish()
    }
}

impl<'scope, 'env, 'id, M: RunMode> Scope<'scope, 'env, 'id, M> {
    /// The awaited form of [`recover`](Self::recover), the recovery point:
    /// resolves when every lane of the scope is idle, then recovers (at
    /// once), with the same result.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn recover_async(&self) -> Recover<'_, 'scope, 'env, 'id, M> {
        Recover {
            w: Waiting::new(self),
        }
    }
}

/// The watch of an event outside scopes: queried in its context.
fn watch_outside(handle: crate::ffi::Raw, target: Target) -> Watch {
    let ctx = crate::ffi::live::owner_of(handle.as_ptr() as usize);
    Watch::new(ctx, 0, vec![target])
}

/// The future of [`Stream::synchronize_async`].
#[must_use = "futures do nothing unless polled"]
pub struct StreamSync<'a, 'ctx, 'id> {
    w: Waiting<&'a Stream<'ctx, 'id>>,
}

impl Future for StreamSync<'_, '_, '_> {
    type Output = Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Result<()>> {
        use crate::ffi::HandleOwner;
        self.w.poll_with(
            cx,
            |s| Watch::new(Some(s.ctx_raw()), 0, vec![Target::Stream(s.handle())]),
            |s| s.synchronize(),
        )
    }
}

impl core::fmt::Debug for StreamSync<'_, '_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamSync")
            .field("stream", &self.w.item)
            .field("registered", &self.w.interest.is_some())
            .finish()
    }
}

impl<'ctx, 'id> Stream<'ctx, 'id> {
    /// The awaited form of [`synchronize`](Self::synchronize): resolves
    /// when the stream is idle, then synchronises (at once), with the same
    /// result. If other threads keep queueing work on the stream, the last
    /// step waits for that work as the blocking form does.
    #[doc(alias = "aclrtSynchronizeStream")]
    pub fn synchronize_async(&self) -> StreamSync<'_, 'ctx, 'id> {
        StreamSync {
            w: Waiting::new(self),
        }
    }
}

/// The future of [`Event::synchronize_async`].
#[must_use = "futures do nothing unless polled"]
pub struct EventSync<'a, 'ctx, 'id, K: EventKind, S: EventState> {
    w: Waiting<&'a Event<'ctx, 'id, K, S>>,
}

impl<K: EventKind, S: IsRecorded> Future for EventSync<'_, '_, '_, K, S> {
    type Output = Result<()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Result<()>> {
        use crate::ffi::HandleOwner;
        self.w.poll_with(
            cx,
            |e| {
                let discarded = crate::ffi::scope::record_discarded;
                watch_outside(e.handle(), Target::Event(e.handle(), discarded))
            },
            |e| e.synchronize(),
        )
    }
}

impl<K: EventKind, S: EventState> core::fmt::Debug for EventSync<'_, '_, '_, K, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EventSync")
            .field("event", &self.w.item)
            .field("registered", &self.w.interest.is_some())
            .finish()
    }
}

impl<'ctx, 'id, K: EventKind, S: IsRecorded> Event<'ctx, 'id, K, S> {
    /// The awaited form of [`synchronize`](Self::synchronize): resolves
    /// when the recorded work completed (or an escalation discarded the
    /// record), then synchronises (at once), with the same result.
    #[doc(alias = "aclrtSynchronizeEvent")]
    #[doc(alias = "aclrtQueryEventStatus")]
    pub fn synchronize_async(&self) -> EventSync<'_, 'ctx, 'id, K, S> {
        EventSync {
            w: Waiting::new(self),
        }
    }
}

/// A future that resolves at `at` (the completion service's clock): the
/// actor's batching window. (Its first 20 µs are the early phase of every
/// future here: polled again at once.)
pub(crate) struct Sleep {
    w: Waiting<Instant>,
}

impl Sleep {
    pub(crate) fn until(at: Instant) -> Sleep {
        Sleep {
            w: Waiting::new(at),
        }
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        self.w.poll_with(
            cx,
            |at| Watch::new(None, 0, vec![Target::Deadline(*at)]),
            |_| (),
        )
    }
}

/// Wakes the thread blocked in [`block_on`].
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

/// Run `fut` to completion on the calling thread, parking it while the
/// future is pending: the smallest executor, for a scope's async body
/// when no runtime is at hand (any other `block_on` does as well).
///
/// Not for a thread of an async runtime: it blocks that thread.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = core::pin::pin!(fut);
    let waker = Arc::new(Unpark(std::thread::current())).into();
    let mut cx = TaskContext::from_waker(&waker);
    loop {
        if let Poll::Ready(out) = fut.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}
