//! A device actor: `'static` tasks reach a device through a handle.
//!
//! Contexts, lanes and scopes are branded and borrowed: they cannot move
//! into a `'static` task of an async runtime. An actor bridges the two
//! worlds without a `'static` context: [`spawn`] starts one thread that
//! runs your `serve` closure, which owns the device, the context, the lanes
//! and the scope; tasks anywhere hold a [`Handle`] (`Send + Sync + Clone +
//! 'static`) and `await` replies with [`Handle::call`].
//!
//! * **Batching.** `serve` takes requests in batches from its [`Inbox`]
//!   ([`Inbox::next_batch_async`] in an async body, [`Inbox::next_batch`]
//!   otherwise): the first request, then whatever arrives within
//!   [`ActorConfig::window`], up to [`ActorConfig::max_batch`].
//! * **Back-pressure.** The queue holds [`ActorConfig::queue`] requests;
//!   [`Handle::call`] waits (without blocking its thread) while it is full,
//!   [`Handle::try_call`] fails with [`ActorError::Full`].
//! * **Replies and failures.** A [`Batch`] is answered as a whole:
//!   [`Replies::send`] a reply per request, or [`Replies::fail`] them all
//!   with the error the batch's work had (a device fault fails exactly the
//!   requests its batch held; the actor goes on with the next batch).
//! * **Shutdown.** [`Actor::shutdown`] refuses new requests and either
//!   serves ([`Shutdown::Drain`]) or refuses ([`Shutdown::Refuse`]) those
//!   queued, then joins the thread and returns what `serve` returned.
//! * **A handle whose actor is gone** (its thread ended: `serve` returned,
//!   failed or panicked, or the actor was shut down) gets
//!   [`ActorError::Gone`] or [`ActorError::ShutDown`], never a hang.
//!
//! Nothing here depends on an executor: the handle's futures run on any,
//! and the actor thread drives its own (see the *Async services* chapter).

use core::future::Future;
use core::pin::pin;
use core::sync::atomic::{AtomicU8, Ordering};
use core::task::Poll;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::error::Error;

/// How an actor takes requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActorConfig {
    /// How many requests may wait in the queue (at least 1); callers wait
    /// (or `try_call` fails) beyond that.
    pub queue: usize,
    /// The most requests in one batch (at least 1).
    pub max_batch: usize,
    /// How long a batch waits for more requests after its first one.
    pub window: Duration,
}

impl Default for ActorConfig {
    fn default() -> Self {
        ActorConfig {
            queue: 1024,
            max_batch: 64,
            window: Duration::from_micros(200),
        }
    }
}

/// Why a request got no reply.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ActorError {
    /// The queue was full ([`Handle::try_call`] only; `call` waits).
    #[error("the device actor's queue is full")]
    Full,
    /// The actor is shutting down or shut down ([`Actor::shutdown`]): it
    /// takes no new requests, and refuses queued ones with
    /// [`Shutdown::Refuse`].
    #[error("the device actor is shut down and takes no requests")]
    ShutDown,
    /// The actor's thread ended (its `serve` returned, failed or panicked):
    /// the device it served is gone.
    #[error("the device actor is gone: its thread ended, and with it the device it served")]
    Gone,
    /// The actor dropped the request without replying.
    #[error("the device actor dropped the request without a reply")]
    NoReply,
    /// The request's batch failed (a device fault of its work, ...).
    #[error("the request's batch failed: {0}")]
    Failed(#[from] Error),
}

const RUNNING: u8 = 0;
const DRAINING: u8 = 1;
const REFUSING: u8 = 2;
const GONE: u8 = 3;

struct Shared {
    state: AtomicU8,
}

impl Shared {
    /// The error for a request the queue did not take, or that was dropped.
    fn closed(&self) -> ActorError {
        match self.state.load(Ordering::Acquire) {
            RUNNING | GONE => ActorError::Gone,
            _ => ActorError::ShutDown,
        }
    }
}

struct Envelope<Req, Rep> {
    req: Req,
    reply: async_channel::Sender<Result<Rep, ActorError>>,
}

/// A cheap, `'static`, thread-safe handle to a device actor.
pub struct Handle<Req, Rep> {
    tx: async_channel::Sender<Envelope<Req, Rep>>,
    shared: Arc<Shared>,
    /// Closed when the actor's thread ends (nothing is ever sent on it):
    /// its sender is owned by the thread's own frame ([`Life`]).
    alive: async_channel::Receiver<()>,
}

impl<Req, Rep> Clone for Handle<Req, Rep> {
    fn clone(&self) -> Self {
        Handle {
            tx: self.tx.clone(),
            shared: self.shared.clone(),
            alive: self.alive.clone(),
        }
    }
}

impl<Req, Rep> core::fmt::Debug for Handle<Req, Rep> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Handle")
            .field("queued", &self.tx.len())
            .field("closed", &self.tx.is_closed())
            .finish()
    }
}

impl<Req: Send + 'static, Rep: Send + 'static> Handle<Req, Rep> {
    /// Send `req` to the actor and wait for its reply. While the queue is
    /// full this waits for room (back-pressure) without blocking the
    /// calling thread; dropping the future before the request is queued
    /// withdraws it, after that only the reply is given up.
    pub async fn call(&self, req: Req) -> Result<Rep, ActorError> {
        let (reply, rx) = async_channel::bounded(1);
        self.tx
            .send(Envelope { req, reply })
            .await
            .map_err(|_| self.shared.closed())?;
        self.reply(rx).await
    }

    /// [`call`](Self::call), failing with [`ActorError::Full`] at once when
    /// the queue is full; the request is queued when this returns `Ok`.
    pub fn try_call(
        &self,
        req: Req,
    ) -> Result<impl Future<Output = Result<Rep, ActorError>> + Send + 'static, ActorError> {
        let (reply, rx) = async_channel::bounded(1);
        match self.tx.try_send(Envelope { req, reply }) {
            Ok(()) => {}
            Err(async_channel::TrySendError::Full(_)) => return Err(ActorError::Full),
            Err(async_channel::TrySendError::Closed(_)) => return Err(self.shared.closed()),
        }
        let shared = self.shared.clone();
        let alive = self.alive.clone();
        Ok(async move { reply_of(&shared, &alive, rx).await })
    }

    async fn reply(
        &self,
        rx: async_channel::Receiver<Result<Rep, ActorError>>,
    ) -> Result<Rep, ActorError> {
        reply_of(&self.shared, &self.alive, rx).await
    }

    /// Whether the actor still takes requests.
    pub fn is_open(&self) -> bool {
        !self.tx.is_closed()
    }
}

/// The reply on `rx`, or, once the actor's thread ended (`alive` closed)
/// with none sent, why there is none: a reply sender that `serve` forgot
/// (with its inbox or a batch's replies) is never dropped, so the end of
/// the thread, not the drop of the sender, decides.
async fn reply_of<Rep>(
    shared: &Shared,
    alive: &async_channel::Receiver<()>,
    rx: async_channel::Receiver<Result<Rep, ActorError>>,
) -> Result<Rep, ActorError> {
    let mut reply = pin!(rx.recv());
    let mut ended = pin!(alive.recv());
    // (the reply if any, whether the thread ended)
    let (got, ended) = core::future::poll_fn(|cx| {
        if let Poll::Ready(r) = reply.as_mut().poll(cx) {
            return Poll::Ready((r.ok(), false));
        }
        if ended.as_mut().poll(cx).is_ready() {
            // A reply sent before the thread ended still counts.
            return Poll::Ready((rx.try_recv().ok(), true));
        }
        Poll::Pending
    })
    .await;
    match got {
        Some(r) => r,
        // Dropped unanswered: by the actor's code, or with its thread.
        None => Err(match shared.state.load(Ordering::Acquire) {
            GONE => ActorError::Gone,
            REFUSING => ActorError::ShutDown,
            DRAINING if ended => ActorError::ShutDown,
            _ => ActorError::NoReply,
        }),
    }
}

/// Owned by the actor thread's own frame (never by `serve`, which cannot
/// forget it): when the thread ends, however `serve` ended (returned,
/// failed, panicked, forgot its inbox or a batch's replies), the queue
/// closes, the requests still in it are refused, and `alive` closes, which
/// every pending call sees.
struct Life<Req, Rep> {
    rx: async_channel::Receiver<Envelope<Req, Rep>>,
    shared: Arc<Shared>,
    _alive: async_channel::Sender<()>,
}

impl<Req, Rep> Drop for Life<Req, Rep> {
    fn drop(&mut self) {
        let _ =
            self.shared
                .state
                .compare_exchange(RUNNING, GONE, Ordering::AcqRel, Ordering::Acquire);
        self.rx.close();
        while let Ok(env) = self.rx.try_recv() {
            let _ = env.reply.try_send(Err(self.shared.closed()));
        }
    }
}

/// The actor's side of the queue, given to `serve` on the actor thread.
pub struct Inbox<Req, Rep> {
    rx: async_channel::Receiver<Envelope<Req, Rep>>,
    /// Requests taken for the batch being collected, and when its window
    /// closes (a cancelled collection keeps them here).
    partial: Vec<Envelope<Req, Rep>>,
    deadline: Instant,
    shared: Arc<Shared>,
    config: ActorConfig,
}

impl<Req, Rep> core::fmt::Debug for Inbox<Req, Rep> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Inbox")
            .field("queued", &self.rx.len())
            .field("config", &self.config)
            .finish()
    }
}

impl<Req, Rep> Drop for Inbox<Req, Rep> {
    fn drop(&mut self) {
        // The device it served goes with it: later calls get `Gone` (or
        // `ShutDown` when shut down first).
        let _ =
            self.shared
                .state
                .compare_exchange(RUNNING, GONE, Ordering::AcqRel, Ordering::Acquire);
        self.rx.close();
        // Requests still queued are dropped: their callers learn why.
        for env in core::mem::take(&mut self.partial) {
            let _ = env.reply.try_send(Err(self.shared.closed()));
        }
        while let Ok(env) = self.rx.try_recv() {
            let _ = env.reply.try_send(Err(self.shared.closed()));
        }
    }
}

impl<Req, Rep> Inbox<Req, Rep> {
    /// The next batch: waits for a first request, then takes what arrives
    /// within the window, up to the batch limit; `None` once the actor is
    /// shut down and its queue drained (or every handle is gone). Blocks
    /// the actor thread (use [`next_batch_async`](Self::next_batch_async)
    /// inside an async body).
    pub fn next_batch(&mut self) -> Option<Batch<Req, Rep>> {
        crate::future::block_on(self.next_batch_async())
    }

    /// The awaited form of [`next_batch`](Self::next_batch): the window is
    /// timed by the crate's completion service, so the body's other futures
    /// (batches in flight on the device) go on meanwhile.
    ///
    /// Cancel-safe: dropped before it resolves, it loses no request — those
    /// it took stay in the inbox, and the next call goes on with them (and
    /// with the window they opened).
    pub async fn next_batch_async(&mut self) -> Option<Batch<Req, Rep>> {
        if self.partial.is_empty() {
            let first = loop {
                let env = self.rx.recv().await.ok()?;
                if let Some(env) = self.admit(env) {
                    break env;
                }
            };
            self.partial.push(first);
            self.deadline = Instant::now() + self.config.window;
        }
        while self.partial.len() < self.config.max_batch.max(1) {
            let env = match self.rx.try_recv() {
                Ok(env) => env,
                Err(async_channel::TryRecvError::Closed) => break,
                Err(async_channel::TryRecvError::Empty) => {
                    if Instant::now() >= self.deadline {
                        break;
                    }
                    let mut recv = pin!(self.rx.recv());
                    let mut sleep = pin!(crate::future::Sleep::until(self.deadline));
                    let got = core::future::poll_fn(|cx| {
                        if let Poll::Ready(r) = recv.as_mut().poll(cx) {
                            return Poll::Ready(r.ok());
                        }
                        if sleep.as_mut().poll(cx).is_ready() {
                            return Poll::Ready(None);
                        }
                        Poll::Pending
                    })
                    .await;
                    match got {
                        Some(env) => env,
                        None => break,
                    }
                }
            };
            if let Some(env) = self.admit(env) {
                self.partial.push(env);
            }
        }
        Some(Batch {
            items: core::mem::take(&mut self.partial),
        })
    }

    /// Run `work` (a batch in flight) and collect the next batch meanwhile:
    /// `work`'s output, and the next batch if it was complete when `work`
    /// finished (else `None`: the requests taken so far stay in the inbox
    /// for the next [`next_batch`](Self::next_batch) call).
    pub async fn collect_during<F: Future>(
        &mut self,
        work: F,
    ) -> (F::Output, Option<Batch<Req, Rep>>) {
        let mut work = pin!(work);
        let mut next = pin!(self.next_batch_async());
        let mut out = None;
        let mut batch = None;
        core::future::poll_fn(|cx| {
            if batch.is_none() {
                if let Poll::Ready(b) = next.as_mut().poll(cx) {
                    // `None` (closed): nothing more to collect.
                    batch = Some(b);
                }
            }
            if out.is_none() {
                if let Poll::Ready(o) = work.as_mut().poll(cx) {
                    out = Some(o);
                }
            }
            if out.is_some() {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await;
        match out {
            Some(out) => (out, batch.flatten()),
            None => unreachable!("the poll above returned Ready with `out` set"),
        }
    }

    /// A request taken from the queue, unless the actor refuses it
    /// (shutting down with [`Shutdown::Refuse`]).
    fn admit(&self, env: Envelope<Req, Rep>) -> Option<Envelope<Req, Rep>> {
        if self.shared.state.load(Ordering::Acquire) == REFUSING {
            let _ = env.reply.try_send(Err(ActorError::ShutDown));
            None
        } else {
            Some(env)
        }
    }

    /// The actor's configuration.
    pub fn config(&self) -> ActorConfig {
        self.config
    }
}

/// Requests taken together from an [`Inbox`].
pub struct Batch<Req, Rep> {
    items: Vec<Envelope<Req, Rep>>,
}

impl<Req, Rep> core::fmt::Debug for Batch<Req, Rep> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Batch")
            .field("len", &self.items.len())
            .finish()
    }
}

impl<Req, Rep> Batch<Req, Rep> {
    /// How many requests.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are none (never, for a batch from an inbox).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The requests, and where their replies go (in the same order).
    pub fn into_parts(self) -> (Vec<Req>, Replies<Rep>) {
        let (reqs, replies) = self.items.into_iter().map(|e| (e.req, e.reply)).unzip();
        (reqs, Replies { replies })
    }
}

/// Where the replies of a [`Batch`] go. Dropped without an answer, its
/// callers get [`ActorError::NoReply`].
pub struct Replies<Rep> {
    replies: Vec<async_channel::Sender<Result<Rep, ActorError>>>,
}

impl<Rep> core::fmt::Debug for Replies<Rep> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Replies")
            .field("len", &self.replies.len())
            .finish()
    }
}

impl<Rep> Replies<Rep> {
    /// How many requests wait for a reply.
    pub fn len(&self) -> usize {
        self.replies.len()
    }

    /// Whether none does.
    pub fn is_empty(&self) -> bool {
        self.replies.is_empty()
    }

    /// Answer every request, in order; a caller that gave up is skipped.
    /// Replies beyond the requests are dropped, requests beyond the
    /// replies get [`ActorError::NoReply`].
    pub fn send(self, replies: impl IntoIterator<Item = Rep>) {
        let mut replies = replies.into_iter();
        for tx in self.replies {
            match replies.next() {
                Some(r) => {
                    let _ = tx.try_send(Ok(r));
                }
                None => {
                    let _ = tx.try_send(Err(ActorError::NoReply));
                }
            }
        }
    }

    /// Fail every request of the batch with `error` (the batch's work
    /// failed: a device fault, ...).
    pub fn fail(self, error: Error) {
        for tx in self.replies {
            let _ = tx.try_send(Err(ActorError::Failed(error.clone())));
        }
    }
}

/// What [`Actor::shutdown`] does with the requests already queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shutdown {
    /// Serve them, then stop.
    Drain,
    /// Fail them with [`ActorError::ShutDown`], then stop.
    Refuse,
}

/// The actor's thread (from [`spawn`]); shut it down with
/// [`shutdown`](Self::shutdown). Dropping it shuts it down with
/// [`Shutdown::Drain`] and waits for the thread.
pub struct Actor<'s, E: Send + 's = Error> {
    thread: Option<Joiner<'s, E>>,
    close: Box<dyn Fn() + Send + Sync>,
    shared: Arc<Shared>,
}

/// The actor's thread: detached ([`spawn`]) or of a thread scope
/// ([`spawn_scoped`]).
enum Joiner<'s, E> {
    Owned(std::thread::JoinHandle<Result<(), E>>),
    Scoped(std::thread::ScopedJoinHandle<'s, Result<(), E>>),
}

impl<E> Joiner<'_, E> {
    fn join(self) -> std::thread::Result<Result<(), E>> {
        match self {
            Joiner::Owned(t) => t.join(),
            Joiner::Scoped(t) => t.join(),
        }
    }

    fn is_finished(&self) -> bool {
        match self {
            Joiner::Owned(t) => t.is_finished(),
            Joiner::Scoped(t) => t.is_finished(),
        }
    }
}

impl<E: Send> core::fmt::Debug for Actor<'_, E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Actor")
            .field("state", &self.shared.state.load(Ordering::Relaxed))
            .finish()
    }
}

impl<E: Send> Actor<'_, E> {
    /// Stop taking requests, serve or refuse those queued (`mode`), wait
    /// for `serve` to return (its inbox yields `None` once the queue is
    /// empty) and return its result. A panic of `serve` is resumed here.
    pub fn shutdown(mut self, mode: Shutdown) -> Result<(), E> {
        self.stop(mode);
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => unreachable!("joined once"),
        }
    }

    /// Whether the actor's thread has ended.
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(Joiner::is_finished)
    }

    fn stop(&self, mode: Shutdown) {
        let to = match mode {
            Shutdown::Drain => DRAINING,
            Shutdown::Refuse => REFUSING,
        };
        let _ =
            self.shared
                .state
                .compare_exchange(RUNNING, to, Ordering::AcqRel, Ordering::Acquire);
        // Handles' sends fail from now on; the inbox still drains the queue.
        (self.close)();
    }
}

impl<E: Send> Drop for Actor<'_, E> {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            self.stop(Shutdown::Drain);
            // Its result (and a panic) has no one to go to.
            let _ = t.join();
        }
    }
}

/// Start a device actor: a thread that runs `serve` with the [`Inbox`] of
/// a queue that [`Handle`]s send requests to. `serve` owns whatever it
/// makes (the device, a context, lanes, a scope) and returns when
/// [`Inbox::next_batch`] says `None` (or on its own error).
///
/// # Errors
/// The thread could not be started.
pub fn spawn<Req, Rep, E, F>(
    config: ActorConfig,
    serve: F,
) -> std::io::Result<(Handle<Req, Rep>, Actor<'static, E>)>
where
    Req: Send + 'static,
    Rep: Send + 'static,
    E: Send + 'static,
    F: FnOnce(Inbox<Req, Rep>) -> Result<(), E> + Send + 'static,
{
    let (handle, inbox, close, life) = channel(config);
    let thread = std::thread::Builder::new()
        .name("aclrt-device-actor".into())
        .spawn(move || {
            let _life = life;
            serve(inbox)
        })?;
    Ok((handle.clone(), actor(Joiner::Owned(thread), &handle, close)))
}

/// [`spawn`] on a thread of the thread scope `scope`: `serve` may borrow
/// what outlives the scope (an [`Acl`](crate::Acl), a
/// [`Runtime`](crate::Runtime) of it), while the [`Handle`] stays
/// `'static` (a handle that outlives the actor gets
/// [`ActorError::Gone`] or [`ActorError::ShutDown`]).
///
/// # Errors
/// The thread could not be started.
pub fn spawn_scoped<'s, 'env, Req, Rep, E, F>(
    scope: &'s std::thread::Scope<'s, 'env>,
    config: ActorConfig,
    serve: F,
) -> std::io::Result<(Handle<Req, Rep>, Actor<'s, E>)>
where
    Req: Send + 'static,
    Rep: Send + 'static,
    E: Send + 's,
    F: FnOnce(Inbox<Req, Rep>) -> Result<(), E> + Send + 's,
{
    let (handle, inbox, close, life) = channel(config);
    let thread = std::thread::Builder::new()
        .name("aclrt-device-actor".into())
        .spawn_scoped(scope, move || {
            let _life = life;
            serve(inbox)
        })?;
    Ok((
        handle.clone(),
        actor(Joiner::Scoped(thread), &handle, close),
    ))
}

type Channel<Req, Rep> = (
    Handle<Req, Rep>,
    Inbox<Req, Rep>,
    async_channel::Sender<Envelope<Req, Rep>>,
    Life<Req, Rep>,
);

fn channel<Req, Rep>(config: ActorConfig) -> Channel<Req, Rep> {
    let (tx, rx) = async_channel::bounded(config.queue.max(1));
    let (alive_tx, alive) = async_channel::bounded(1);
    let shared = Arc::new(Shared {
        state: AtomicU8::new(RUNNING),
    });
    let life = Life {
        rx: rx.clone(),
        shared: shared.clone(),
        _alive: alive_tx,
    };
    let inbox = Inbox {
        rx,
        partial: Vec::new(),
        deadline: Instant::now(),
        shared: shared.clone(),
        config,
    };
    (
        Handle {
            tx: tx.clone(),
            shared,
            alive,
        },
        inbox,
        tx,
        life,
    )
}

fn actor<'s, Req: Send + 'static, Rep: Send + 'static, E: Send + 's>(
    thread: Joiner<'s, E>,
    handle: &Handle<Req, Rep>,
    closer: async_channel::Sender<Envelope<Req, Rep>>,
) -> Actor<'s, E> {
    Actor {
        thread: Some(thread),
        close: Box::new(move || {
            closer.close();
        }),
        shared: handle.shared.clone(),
    }
}
