//! Host functions served by a thread the program owns
//! (`aclrtSubscribeHostFunc`, `aclrtProcessHostFunc`,
//! `aclrtUnSubscribeHostFunc`): [`Stream::serve_host_fns`] and the
//! [`HostFnServer`] it lends to its closure.
//!
//! The runtime's documentation offers these functions on IPV350 only: the
//! Atlas A2 and inference series answer 207000, which
//! [`serve_host_fns`](Stream::serve_host_fns) returns as an error whose
//! [`kind`](crate::Error::kind) is [`NotSupported`](ErrorKind::NotSupported)
//! before it runs the closure. (The simulator answers as those chips do by
//! default; its `compact` setting, `ACLRT_SIM_HOST_FUNC_THREADS=compact` or
//! `SimConfig::host_func_threads`, serves them as the compact runtime does.)
//!
//! # What the types guarantee
//! * The subscription lives exactly as long as the closure: it is made
//!   before the closure runs and undone after it returns or unwinds, so
//!   `mem::forget` cannot leave a stream subscribed to a thread that no
//!   longer serves it.
//! * The [`HostFnServer`] is only lent to the closure (it cannot outlive
//!   it, so neither the stream nor its context) and is neither `Send` nor
//!   `Sync`: the runtime serves the thread that subscribed, so only that
//!   thread may process.
//! * Host functions run through the crate's trampoline, as every host
//!   function does: a panic is caught on the serving thread and resumed by
//!   the next [`Stream::synchronize`] (the stream's work failed); they run
//!   holding no crate lock; calls that wait for the device are refused
//!   inside them, and so is processing (a host function cannot re-enter
//!   the server).
//! * The serving thread cannot synchronise a stream it serves (the
//!   synchronisation would wait for a host function only this thread can
//!   run): [`Stream::synchronize`] answers [`Error::InCallback`](crate::Error::InCallback) there.
//!   Its other waits for the device (a context's synchronisation, an
//!   event's, another stream's, a scope's end) may depend on a served host
//!   function: while the stream or event they wait for is unfinished, the
//!   thread runs the served host functions, so they end.

use core::marker::PhantomData;
use core::time::Duration;

use crate::error::{Error, ErrorKind, Result};
use crate::ffi::{self, Raw, host_thread as raw};
use crate::marker::ThreadBound;
use crate::stream::Stream;

/// What one [`HostFnServer::process`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub enum Processed {
    /// One host function of a served stream ran on this thread (a panic in
    /// it was caught, and is resumed by the stream's next synchronisation).
    Ran,
    /// None was queued before the timeout.
    TimedOut,
}

/// The calling thread's service of a stream's host functions, lent to the
/// closure of [`Stream::serve_host_fns`].
///
/// Neither `Send` nor `Sync`: only the thread that subscribed is served (it
/// holds a [`ThreadBound`], which the compile errors of such a use name).
pub struct HostFnServer<'s> {
    _this_thread: ThreadBound,
    stream: Raw,
    tid: u64,
    _stream: PhantomData<&'s ()>,
}

impl core::fmt::Debug for HostFnServer<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HostFnServer")
            .field("stream", &self.stream.as_ptr())
            .field("thread", &self.tid)
            .finish()
    }
}

impl HostFnServer<'_> {
    /// The id the runtime knows the serving thread by (its `pthread_t`).
    pub fn thread_id(&self) -> u64 {
        self.tid
    }

    /// Run at most one host function of the served stream(s) on this
    /// thread (`aclrtProcessHostFunc`), waiting up to `timeout` for one to
    /// be due (rounded up to whole milliseconds; at most `i32::MAX` ms).
    ///
    /// Errors: [`Error::InCallback`](crate::Error::InCallback) inside a host function (a host
    /// function cannot re-enter its server); the runtime's otherwise.
    #[doc(alias = "aclrtProcessHostFunc")]
    pub fn process(&self, timeout: Duration) -> Result<Processed> {
        ffi::refuse_in_callback("HostFnServer::process")?;
        let ms = timeout
            .as_nanos()
            .div_ceil(1_000_000)
            .clamp(1, i32::MAX as u128) as i32;
        match raw::process_host_func(ms) {
            Ok(()) => Ok(Processed::Ran),
            Err(e) if e.kind() == ErrorKind::Timeout => Ok(Processed::TimedOut),
            Err(e) => Err(e),
        }
    }

    /// Process until `stop` says so, each wait at most `poll`: a serving
    /// loop. Returns how many host functions ran.
    pub fn serve_until(&self, poll: Duration, mut stop: impl FnMut() -> bool) -> Result<usize> {
        let mut ran = 0;
        while !stop() {
            if self.process(poll)? == Processed::Ran {
                ran += 1;
            }
        }
        Ok(ran)
    }
}

/// Undoes the subscription and the thread's mark when the closure returns
/// or unwinds (a local: the user cannot forget it).
struct Unsubscribe {
    stream: Raw,
    ctx: Raw,
    tid: u64,
    done: bool,
}

impl Unsubscribe {
    fn finish(&mut self) -> Result<()> {
        self.done = true;
        crate::serving::end(self.stream);
        ffi::make_current(self.ctx)?;
        raw::unsubscribe_host_func(self.tid, self.stream)
    }
}

impl Drop for Unsubscribe {
    fn drop(&mut self) {
        if !self.done {
            // Unwinding from the closure: the unsubscription's own error
            // cannot be reported over the panic.
            let _ = self.finish();
        }
    }
}

impl<'ctx, 'id> Stream<'ctx, 'id> {
    /// Serve this stream's host functions on the calling thread while `f`
    /// runs (`aclrtSubscribeHostFunc` before, `aclrtUnSubscribeHostFunc`
    /// after, even if `f` panics): host functions queued on the stream
    /// ([`launch_host_fn`](Self::launch_host_fn), from any thread) run
    /// inside [`HostFnServer::process`] on this thread, in order. None is
    /// lost when `f` returns with some unserved: one already due runs
    /// during the unsubscription (on this thread), a later one on the
    /// runtime's own thread; a panic among them is resumed by the stream's
    /// next [`synchronize`](Self::synchronize) as usual.
    ///
    /// Errors (before `f` runs): 207000 ([`ErrorKind::NotSupported`]) on
    /// chips without host-function threads (all but IPV350, and the
    /// simulator by default); [`Error::InCallback`](crate::Error::InCallback) inside a host function
    /// or in a thread-local destructor once the crate's thread-locals are gone;
    /// the runtime's subscription errors (107011: the stream already has a
    /// serving thread or a report subscription). After `f`: the
    /// unsubscription's error, with `f`'s result dropped.
    ///
    /// ```
    /// # let _sim = aclrt::sim::exclusive();
    /// # aclrt::sim::configure(aclrt::sim::SimConfig {
    /// #     host_func_threads: aclrt::sim::HostFuncThreads::Compact,
    /// #     ..aclrt::sim::SimConfig::default()
    /// # });
    /// use std::time::Duration;
    /// let acl = aclrt::Acl::init()?;
    /// let device = acl.require::<aclrt::HostMode>()?.device(0)?;
    /// aclrt::make_guard!(guard);
    /// let ctx = device.create_context(guard)?;
    /// let stream = ctx.create_stream()?;
    /// let ran = stream.serve_host_fns(|server| {
    ///     let me = std::thread::current().id();
    ///     let (tx, rx) = std::sync::mpsc::channel();
    ///     stream.launch_host_fn(move || tx.send(std::thread::current().id()).unwrap())?;
    ///     while server.process(Duration::from_millis(10))? != aclrt::Processed::Ran {}
    ///     assert_eq!(rx.recv().unwrap(), me);
    ///     Ok::<_, aclrt::Error>(1)
    /// })??;
    /// stream.synchronize()?;
    /// assert_eq!(ran, 1);
    /// # Ok::<(), aclrt::Error>(())
    /// ```
    #[doc(alias = "aclrtSubscribeHostFunc")]
    #[doc(alias = "aclrtUnSubscribeHostFunc")]
    pub fn serve_host_fns<R, F>(&self, f: F) -> Result<R>
    where
        F: for<'s> FnOnce(&HostFnServer<'s>) -> R,
    {
        ffi::refuse_in_callback("Stream::serve_host_fns")?;
        self.bind()?;
        // Recorded first: a thread that cannot record it (in a thread-local
        // destructor) could neither refuse nor serve its own waits.
        if !crate::serving::begin(self.raw()) {
            return Err(Error::InCallback {
                operation: "Stream::serve_host_fns after the thread's locals were destroyed",
            });
        }
        let tid = raw::this_thread_id();
        if let Err(e) = raw::subscribe_host_func(tid, self.raw()) {
            crate::serving::end(self.raw());
            return Err(e);
        }
        let mut guard = Unsubscribe {
            stream: self.raw(),
            ctx: self.ctx_raw(),
            tid,
            done: false,
        };
        let server = HostFnServer {
            _this_thread: ThreadBound::NEW,
            stream: self.raw(),
            tid,
            _stream: PhantomData,
        };
        let out = f(&server);
        guard.finish()?;
        Ok(out)
    }
}
