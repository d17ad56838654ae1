//! Report callbacks: a [`Reporter`] thread that serves callbacks launched on
//! subscribed streams (`aclrtSubscribeReport`, `aclrtLaunchCallback`,
//! `aclrtProcessReport`, `aclrtUnSubscribeReport`).
//!
//! The C flow needs a thread that loops on `aclrtProcessReport`, its
//! `pthread_t` for `aclrtSubscribeReport`, and a `void*` that outlives the
//! callback. Here a [`Reporter`] owns the thread (spawned, looping, stopped
//! and joined by the library), a [`Subscription`] borrows both the reporter
//! and the stream for as long as the stream is subscribed, and callbacks are
//! `Send + 'static` closures, like [`Stream::launch_host_fn`].

use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::ffi::locks::{Rank, lock};
use crate::ffi::report;
use crate::stream::Stream;

/// How long one `aclrtProcessReport` call waits before the loop looks at its
/// stop flag again.
const POLL_MS: i32 = 20;

struct Shared {
    /// Set by `stop`/`drop`; the loop exits when it sees it.
    stop: Mutex<bool>,
    /// Wakes the loop: a subscription was made, or stop was asked.
    wake: Condvar,
    /// The first panic of a callback, resumed by [`Reporter::stop`].
    panics: report::PanicSlot,
}

/// A thread that runs report callbacks (`aclrtProcessReport` in a loop), for
/// the streams [`subscribe`](Reporter::subscribe)d to it.
///
/// ```
/// # let _sim = aclrt::sim::exclusive();
/// use std::sync::mpsc;
/// use aclrt::{Acl, HostMode, Reporter, make_guard};
/// let acl = Acl::init()?;
/// let device = acl.require::<HostMode>()?.device(0)?;
/// make_guard!(g);
/// let ctx = device.create_context(g)?;
/// let stream = ctx.create_stream()?;
/// let reporter = Reporter::spawn()?;
/// let (tx, rx) = mpsc::channel();
/// {
///     let sub = reporter.subscribe(&stream)?;            // aclrtSubscribeReport
///     let out = ctx.alloc_from(&[1u8, 2, 3])?;
///     sub.launch_blocking(move || tx.send("device work done").unwrap())?; // aclrtLaunchCallback(BLOCK)
///     stream.synchronize()?;                             // a BLOCK callback has run by now
///     assert_eq!(rx.try_recv().unwrap(), "device work done");
///     drop(out);
/// }                                                      // aclrtUnSubscribeReport
/// reporter.stop()?;                                      // the loop ends, the thread is joined
/// # Ok::<(), aclrt::Error>(())
/// ```
///
/// # What cannot go wrong
/// * **Callbacks** are `FnOnce() + Send + 'static`: they own what they use,
///   so they may run late (a non-blocking callback runs after the stream
///   has moved on) or on another thread. A panic is caught on the reporter
///   thread (it never unwinds through C) and resumed by
///   [`stop`](Reporter::stop). Inside a callback, calls that wait for the
///   device (`synchronize`, destroying a stream or context, scopes) and the
///   report calls themselves return [`Error::InCallback`] instead of
///   deadlocking; the documentation says callbacks must not call the
///   runtime.
/// * **Stopping**: a [`Subscription`] borrows the reporter, so it cannot be
///   stopped while a stream is subscribed. If a `Subscription` was leaked
///   (`mem::forget`), the thread undoes that subscription as it exits,
///   running the stream's queued callbacks, so no stream is left waiting
///   for a thread that no longer reports. Dropping the last handle of a
///   reporter *on its own thread* (from one of its callbacks) does not join
///   (it cannot wait for itself): the loop ends after that callback.
/// * **Thread id**: the subscribed id is the reporter thread's `pthread_t`
///   ([`JoinHandleExt::as_pthread_t`](std::os::unix::thread::JoinHandleExt)),
///   the id the runtime expects; no unsafe code or raw id in your program.
/// * A callback that never runs (its task skipped by a device fault, or a
///   stream abort) is leaked, never freed while the runtime may still call it.
///
/// While a stream is subscribed, host functions on it
/// ([`Stream::launch_host_fn`], [`Lane::host_fn`](crate::Lane::host_fn))
/// return [`Error::CallbackMix`]: the documentation says not to mix
/// `aclrtLaunchHostFunc` with report callbacks on one stream. Subscribing a
/// stream on which a host function was ever queued is refused the same way,
/// for the rest of the stream's life: the real runtime serves such a stream
/// with its own callback thread for good and refuses `aclrtSubscribeReport`
/// on it (107011; `sim/FIDELITY.md` row CB-MIX-2). Use separate streams for
/// the two mechanisms.
///
/// One reporter may serve several streams of **one device** (the runtime
/// refuses a thread for a second device); at most 1024 reporters, and the
/// documentation recommends 32 or fewer. `Send` and `Sync`.
#[doc(alias = "aclrtProcessReport")]
#[doc(alias = "aclrtSubscribeReport")]
pub struct Reporter {
    shared: Arc<Shared>,
    tid: u64,
    thread: Option<JoinHandle<()>>,
}

impl core::fmt::Debug for Reporter {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Reporter")
            .field("thread_id", &self.tid)
            .finish()
    }
}

impl Reporter {
    /// Spawn the reporting thread (named `aclrt-reporter`). It sleeps until
    /// a stream is subscribed, then calls `aclrtProcessReport` in a loop.
    ///
    /// Errors: [`Error::Spawn`] if the thread cannot be spawned.
    pub fn spawn() -> Result<Reporter> {
        use std::os::unix::thread::JoinHandleExt;
        let shared = Arc::new(Shared {
            stop: Mutex::new(false),
            wake: Condvar::new(),
            panics: Arc::new(Mutex::new(None)),
        });
        let (tx, rx) = mpsc::channel::<u64>();
        let inner = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("aclrt-reporter".into())
            .spawn(move || {
                // The parent sends this thread's id once it knows it.
                if let Ok(tid) = rx.recv() {
                    run(&inner, tid);
                }
            })
            .map_err(|e| Error::Spawn {
                what: "the reporter thread",
                message: e.to_string(),
            })?;
        // `pthread_t` is `u64` on Linux but an integer of another width on
        // other Unix systems; the runtime takes it as `uint64_t`.
        #[allow(clippy::unnecessary_cast)]
        let tid = thread.as_pthread_t() as u64;
        // The receiver lives until the thread has received (it waits for it).
        let _ = tx.send(tid);
        Ok(Reporter {
            shared,
            tid,
            thread: Some(thread),
        })
    }

    /// The id the runtime knows this reporter's thread by (its `pthread_t`).
    pub fn thread_id(&self) -> u64 {
        self.tid
    }

    /// Subscribe `stream` to this reporter (`aclrtSubscribeReport`), until
    /// the returned [`Subscription`] is dropped or
    /// [unsubscribed](Subscription::unsubscribe).
    ///
    /// Errors: the runtime's, e.g. 107011 (`ACL_ERROR_RT_STREAM_SUBSCRIBE`)
    /// when the stream already has a reporter, 107012
    /// (`ACL_ERROR_RT_THREAD_SUBSCRIBE`) when this reporter already serves a
    /// stream of another device; [`Error::InCallback`] inside a callback;
    /// [`Error::CallbackMix`] when a host function was ever queued on the
    /// stream ([`Stream::launch_host_fn`],
    /// [`Lane::host_fn`](crate::Lane::host_fn)): the runtime refuses the
    /// mix for the rest of the stream's life.
    #[doc(alias = "aclrtSubscribeReport")]
    pub fn subscribe<'r, 's, 'ctx, 'id>(
        &'r self,
        stream: &'s Stream<'ctx, 'id>,
    ) -> Result<Subscription<'r, 's, 'ctx, 'id>> {
        report::subscribe(self.tid, stream.raw(), stream.ctx_raw())?;
        // Wake the loop: it has something to process now.
        let _stop = lock(&self.shared.stop, Rank::ReporterStop);
        self.shared.wake.notify_all();
        Ok(Subscription {
            reporter: self,
            stream,
        })
    }

    /// Stop the loop and join the thread; then resume the first panic of a
    /// callback, if one panicked (as [`Stream::synchronize`] does for host
    /// functions).
    ///
    /// Inside one of this reporter's own callbacks the thread cannot be
    /// joined: the loop is told to stop after that callback, and this
    /// returns [`Error::InCallback`].
    ///
    /// # Panics
    /// Resumes the panic of a callback, as said above; never panics
    /// otherwise.
    pub fn stop(mut self) -> Result<()> {
        self.request_stop();
        // Joined only here (which takes `self`) or in `drop`: always there.
        let Some(thread) = self.thread.take() else {
            return Ok(());
        };
        if thread.thread().id() == std::thread::current().id() {
            return Err(Error::InCallback {
                operation: "Reporter::stop (join its own thread)",
            });
        }
        let _ = thread.join();
        let panic = report::take_panic(&self.shared.panics);
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
        Ok(())
    }

    fn request_stop(&self) {
        *lock(&self.shared.stop, Rank::ReporterStop) = true;
        self.shared.wake.notify_all();
    }
}

impl Drop for Reporter {
    fn drop(&mut self) {
        self.request_stop();
        if let Some(thread) = self.thread.take() {
            // Not on its own thread (from its callback): that would wait for
            // itself; the loop ends after the callback instead.
            if thread.thread().id() != std::thread::current().id() {
                let _ = thread.join();
            }
        }
    }
}

/// The reporter loop.
fn run(shared: &Shared, tid: u64) {
    loop {
        {
            let mut stop = lock(&shared.stop, Rank::ReporterStop);
            if *stop {
                break;
            }
            if report::count(tid) == 0 {
                // Nothing subscribed: aclrtProcessReport would fail at once.
                stop = stop.wait_timeout(&shared.wake, Duration::from_millis(POLL_MS as u64));
                drop(stop);
                continue;
            }
        }
        // A timeout (507012): look at the stop flag and the subscriptions
        // again. Any other error (e.g. 107012, unsubscribed meanwhile, or a
        // runtime torn down under the book) also goes round, after a pause
        // so that a persistent error does not spin.
        if let Err(e) = report::process_report(POLL_MS) {
            if e.code() != Some(aclrt_sys::ACL_ERROR_RT_REPORT_TIMEOUT) {
                std::thread::sleep(Duration::from_millis(POLL_MS as u64));
            }
        }
    }
    // Subscriptions a leaked `Subscription` left: undone here, so no stream
    // waits for a thread that no longer reports.
    report::thread_exiting(tid);
}

/// A stream subscribed to a [`Reporter`] (`aclrtSubscribeReport`), borrowing
/// both; unsubscribed (`aclrtUnSubscribeReport`) on drop or by
/// [`unsubscribe`](Self::unsubscribe). Callbacks still queued then run on
/// the unsubscribing thread.
///
/// `Send` and `Sync` (it is two borrows).
#[doc(alias = "aclrtUnSubscribeReport")]
pub struct Subscription<'r, 's, 'ctx, 'id> {
    reporter: &'r Reporter,
    stream: &'s Stream<'ctx, 'id>,
}

impl core::fmt::Debug for Subscription<'_, '_, '_, '_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Subscription")
            .field("reporter", &self.reporter.tid)
            .field("stream", &self.stream.as_raw())
            .finish()
    }
}

impl<'ctx, 'id> Subscription<'_, '_, 'ctx, 'id> {
    /// The subscribed stream.
    pub fn stream(&self) -> &Stream<'ctx, 'id> {
        self.stream
    }

    /// Queue `f` on the stream (`aclrtLaunchCallback`,
    /// `ACL_CALLBACK_NO_BLOCK`): once the work queued before it is done, it
    /// is handed to the reporter thread, and the stream goes on without
    /// waiting for it. It may run after a [`Stream::synchronize`] returned.
    #[doc(alias = "aclrtLaunchCallback")]
    pub fn launch<F>(&self, f: F) -> Result<()>
    where
        F: FnOnce() + Send + 'static,
    {
        self.launch_with(false, Box::new(f))
    }

    /// Queue `f` on the stream (`aclrtLaunchCallback`, `ACL_CALLBACK_BLOCK`):
    /// work queued after it waits until `f` has run on the reporter thread,
    /// so a [`Stream::synchronize`] that returns has seen it run.
    #[doc(alias = "aclrtLaunchCallback")]
    pub fn launch_blocking<F>(&self, f: F) -> Result<()>
    where
        F: FnOnce() + Send + 'static,
    {
        self.launch_with(true, Box::new(f))
    }

    fn launch_with(&self, block: bool, f: Box<dyn FnOnce() + Send + 'static>) -> Result<()> {
        self.stream.bind()?;
        report::launch_callback(
            self.stream.raw(),
            block,
            f,
            Arc::clone(&self.reporter.shared.panics),
        )
    }

    /// Unsubscribe now (`aclrtUnSubscribeReport`), reporting the runtime's
    /// error; callbacks still queued for the stream run on this thread
    /// before it returns. [`Error::InCallback`] inside a callback (the
    /// subscription then stays until the reporter stops or the stream is
    /// destroyed).
    #[doc(alias = "aclrtUnSubscribeReport")]
    pub fn unsubscribe(self) -> Result<()> {
        let this = core::mem::ManuallyDrop::new(self);
        report::unsubscribe(this.reporter.tid, this.stream.raw())
    }
}

impl Drop for Subscription<'_, '_, '_, '_> {
    fn drop(&mut self) {
        // Drop cannot report; `unsubscribe` does.
        let _ = report::unsubscribe(self.reporter.tid, self.stream.raw());
    }
}
