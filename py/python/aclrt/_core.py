r"""The resource tree: Runtime → Device → Context → Stream / Event / buffers.

Every object is released exactly once, after its children:

* ``close()`` releases one object and raises :class:`AclUsageError` while it
  has live children (a parent released before its children);
* leaving a ``with`` block (normally or by an exception) closes the object's
  whole subtree in the only legal order: streams (synchronized first), then
  events, then buffers, then contexts, then the object itself.

Each call first makes the object's context current on the calling thread
(one ``acl.rt.get_context`` and, when it differs, ``acl.rt.set_context``),
so objects may be used from any thread.

Memory belongs to Rust (``acl._native.Memory``, the base of both buffer
classes): pinned buffers export Python's buffer protocol, so numpy arrays and
``memoryview``\ s hold an export, and the check "no export left" and the free
are one step there, whatever thread asks. ``close()`` of a buffer with live
views raises; leaving a ``with`` block instead *defers* the release: the
buffer, and every ancestor that waits for it (context, device, runtime), is
released in order when the last view dies (as CuPy keeps memory alive), on
the thread that drops it (whose current context is then changed). A parent
whose remaining children all wait so is released with the last of them, by
``close()`` as by a ``with`` block. Copies go through ``acl._native._copy``, which holds both sides (an export of
a numpy array, the state of a buffer) for the duration of the runtime call
and takes only plain numeric data. Resource objects refuse ``pickle`` and
``copy``.

Runtime handles belong to Rust too (``acl._native.Handle``, one per runtime,
device, context, stream and event): every call that passes one to the runtime
holds a *use* of it until the call returns (a blocking ``synchronize`` that
released the GIL included), and a release is granted only while no use is in
flight and no child lives, in the same step that closes the handle to new
uses. A ``close()`` racing a use on another thread therefore raises
:class:`AclUsageError` instead of destroying the handle under the call.
"""

import functools
import operator
import threading
import time

import acl
from acl import _native

from . import constants as C
from .errors import AclUsageError, CallbackError, check

_copy = _native._copy
_copy_or_raise = _native._copy_or_raise
_Handle = _native.Handle


def _bind_to(h):
    """Makes the context of handle ``h`` current on the calling thread
    (callers hold a use of it, or a child that keeps it alive); Rust tells a
    new context from a destroyed one at the same address."""
    ret = h._bind()
    if ret:
        check(ret, "acl.rt.set_context")

_np_module = None
_tls = threading.local()  # .callback_stream: set while a stream callback runs


def _no_wait_in_callback(what, stream=None):
    """A blocking callback holds its stream until it returns, and the thread
    that runs it is the one thread that runs the callbacks of every stream
    of its context that has any: a wait from inside it for such a stream
    (``stream``), or for the whole device (``None``), could only be served
    by the waiting thread itself, so it is refused at once."""
    if _native._serving(None if stream is None else stream._h):
        raise AclUsageError(
            f"{what} from the thread that serves "
            + ("a stream of the device" if stream is None else "this stream")
            + " (stream.serve()) would deadlock if a callback is queued: only this thread runs "
            "it; run them with server.process(), or wait after the with-block or from another thread"
        )
    cb = getattr(_tls, "callback_stream", None)
    if cb is None:
        return
    if stream is None:
        target = "every stream of the device"
    elif stream is cb:
        target = "the stream of this callback"
    elif stream._parent is cb._parent and stream._subscribed:
        target = "another stream of this context with callbacks"
    else:
        return
    raise AclUsageError(
        f"{what} from inside a stream callback would deadlock (never return): it waits for "
        f"{target}, whose callbacks only this thread runs (the streams of a context "
        "share one callback thread, busy in this callback); wait from another thread"
    )


async def _awaited_wait(kind, ctx_h, target_h):
    """The runtime's ret once the stream (``kind`` 0) or event (1) of
    ``target_h`` is done, awaited: work done (or about to be: polled
    briefly) is waited for at once; otherwise the wait runs on a waiting
    thread of ``acl._native`` (GIL released), which settles the work it
    covers and hands the result to the loop."""
    loop = _asyncio().get_running_loop()
    ret = _native._wait_now(kind, ctx_h, target_h)
    if ret is not None:
        return ret
    fut = loop.create_future()

    def notify(ret):
        try:
            loop.call_soon_threadsafe(_resolve, fut, ret)
        except RuntimeError:  # the loop is closed: nobody awaits any more
            pass

    _native._wait_async(kind, ctx_h, target_h, notify)
    return await fut


_asyncio_module = None


def _asyncio():
    global _asyncio_module
    if _asyncio_module is None:
        import asyncio

        _asyncio_module = asyncio
    return _asyncio_module


def _resolve(fut, ret):
    if not fut.done():  # a cancelled await drops only the result
        fut.set_result(ret)


def _np():
    global _np_module
    if _np_module is None:
        import numpy

        _np_module = numpy
    return _np_module


def _plain_dtype(dtype):
    """``numpy.dtype(dtype)`` if it is a plain number (bool, integer, float,
    complex); anything else (objects, strings, records, datetimes) would let
    raw bytes become Python objects or garbage: ``TypeError``."""
    dt = _np().dtype(dtype)
    if dt.kind not in "biufc" or dt.fields is not None or dt.subdtype is not None:
        raise TypeError(
            f"only plain numeric dtypes (bool, integers, floats, complex) view or copy "
            f"runtime memory, not {dt!r}"
        )
    return dt


_PLAIN_FORMATS = frozenset("?bBhHiIlLqQnNefdg") | {"Ze", "Zf", "Zd", "Zg"}


def _plain_format(fmt):
    """The struct format of plain numbers (as ``acl._native`` checks copies)."""
    return fmt.lstrip("@=<>!") in _PLAIN_FORMATS


def _size(nbytes, what="a buffer"):
    """A positive byte count: ints and numpy integers (``__index__``)."""
    if isinstance(nbytes, bool):
        raise TypeError(f"{what} needs an integer size, not {nbytes!r}")
    try:
        n = operator.index(nbytes)
    except TypeError:
        raise TypeError(f"{what} needs an integer size, not {type(nbytes).__name__}") from None
    if n <= 0:
        raise ValueError(f"{what} needs a positive size, not {n}")
    if n >= 1 << 63:
        raise OverflowError(f"{what} of {n} bytes cannot be allocated")
    return n


def _plain_int(n):
    """``n`` as a plain ``int`` when it is an integer (its ``__index__`` run
    here, before any runtime call); otherwise as is, for Rust's own message."""
    if n is None or isinstance(n, bool):
        return n
    try:
        return operator.index(n)
    except TypeError:
        return n


class _Node:
    _order = 9  # close order among siblings: lower first
    _what = "resource"
    _h = None  # the Rust handle (buffers have their Memory instead)

    _parent_type = None  # the class its parent must be (set below)

    _parent = _UNSET = object()  # until initialised

    def __init__(self, parent):
        # (Not `self.__dict__`: reading it makes every later attribute
        # lookup on the object slower.)
        if self._parent is not _Node._UNSET:
            raise TypeError(f"a {type(self).__name__} is initialised once")
        want = self._parent_type
        if want is not None and not isinstance(parent, want):
            raise TypeError(
                f"a {type(self).__name__} belongs to a {want.__name__}, not {type(parent).__name__}"
            )
        self._parent = parent
        self._closed = False  # mirrors the state; the tree lives in Rust
        if not isinstance(self, _native.Memory):
            # A child of the parent's handle, which keeps this node once it
            # is initialised (refused, atomically, once the parent is
            # released or being released). The tree (children, waiting,
            # which caller releases a waiting node) lives there.
            h = self._h = _Handle(self._what, None if parent is None else parent._h)
            if parent is not None:
                h._adopt(self, self._order)

    @property
    def _children(self):
        """The children not yet released, in close order (kept in Rust)."""
        return self._h._kids()

    def _parent_claimed(self):
        return self._h._parent_claimed()

    # -- no second owner -----------------------------------------------------
    def _refuse_copy(self, *_args):
        raise TypeError(
            f"cannot pickle or copy a {type(self).__name__}: it holds runtime resources of "
            "this process (a copy would be a second owner, or a handle another process "
            "never created)"
        )

    __reduce__ = __reduce_ex__ = __copy__ = __deepcopy__ = __getstate__ = _refuse_copy

    # -- state ---------------------------------------------------------------
    @property
    def closed(self):
        """True once released (or once an ancestor was)."""
        node = self
        while node is not None:
            if node._closed:
                return True
            node = node._parent
        return False

    def _check_open(self):
        # A parent is never released before its children (close() refuses,
        # with-blocks release children first), so the own flag suffices.
        if self._closed:
            raise AclUsageError(f"{self._what} used after it was released")

    # -- release -------------------------------------------------------------
    def close(self):
        """Releases this object; its children must be released already (or
        be waiting for their last view: then this waits with them)."""
        if self._h is not None and not self._closed:
            self._quiesce_awaits()
        self._close(False)

    def _close(self, defer):
        if self._closed:
            return
        kids = self._children
        live = [c for c in kids if not c._closed]
        if live:
            kinds = ", ".join(sorted({c._what for c in live}))
            raise AclUsageError(
                f"cannot release the {self._what} before its {len(live)} live "
                f"children ({kinds}): close them first, or leave its with-block, "
                "which releases them in order"
            )
        if kids:  # only children waiting for their last view
            self._wait_for_children()
            return
        self._do_release()
        self._released()

    def _quiesce_awaits(self):
        """Awaited waits in flight on this handle (a cancelled ``await``
        leaves its wait to finish) end once the work they wait for is done:
        wait for that work (blocking), then for them to end, so that the
        release is not refused for them."""
        if not self._h._awaits:
            return
        self._wait_for_release()
        deadline = time.monotonic() + 5
        while self._h._awaits and time.monotonic() < deadline:
            time.sleep(0.0002)

    def _wait_for_release(self):
        pass

    def _do_release(self):
        """The release, granted by the handle (no use in flight, no child
        left) in the step that closes it to new uses."""
        self._quiesce_awaits()
        self._h._begin_release()
        ok = False
        try:
            self._release()
            ok = True
        finally:
            self._h._end_release(ok)

    def _wait_for_children(self):
        """Released by the last child to go (or now, if it went meanwhile):
        Rust gives the release to exactly one of the two."""
        self._closed = True
        if self._h._wait_for_children():
            self._release_claimed()

    def _release_claimed(self):
        """The release of a waiting node, by whoever finished last; with a
        use still in flight (begun before it waited), by the end of the last
        one (the handle calls back)."""
        if self._h._begin_release(self._release_claimed) is None:
            return
        ok = False
        try:
            self._release()
            ok = True
        finally:
            self._h._end_release(ok)
        self._released()

    def _released(self):
        """After a release: releases a waiting parent whose release the end
        of this one gave to this caller (decided in Rust)."""
        self._closed = True
        parent = self._parent
        if parent is not None and self._parent_claimed():
            parent._release_claimed()

    def _close_tree(self):
        for child in self._children:  # in close order
            child._close_tree()
        self._close(True)

    def _release(self):
        raise NotImplementedError

    def __enter__(self):
        self._check_open()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._close_tree()
        return False


class Runtime(_Node):
    """``acl.init()`` … ``acl.finalize()``."""

    _order = 5
    _what = "runtime"

    def __init__(self, config_path=None):
        super().__init__(None)
        ret = acl.init() if config_path is None else acl.init(config_path)
        if ret != 0:
            self._closed = True
            self._h._abandon()
        check(ret, "acl.init")
        self._h._open(0)

    def device(self, device_id=0):
        """Sets ``device_id`` (``acl.rt.set_device``); reset when released."""
        self._check_open()
        if isinstance(device_id, bool):
            raise TypeError(f"a device id is an integer, not {device_id!r}")
        return Device(self, device_id)

    @property
    def device_count(self):
        count, ret = acl.rt.get_device_count()
        check(ret, "acl.rt.get_device_count")
        return count

    def _release(self):
        check(acl.finalize(), "acl.finalize")


class Device(_Node):
    """A device set on this process; its default context and stream."""

    _order = 4
    _what = "device"

    def __init__(self, runtime, device_id):
        super().__init__(runtime)
        self.id = device_id
        try:
            check(acl.rt.set_device(device_id), "acl.rt.set_device")
        except BaseException:
            self._closed = True
            self._h._abandon()
            raise
        self._h._open(device_id)
        handle, ret = acl.rt.get_context()
        check(ret, "acl.rt.get_context")
        mode, ret = acl.rt.get_run_mode()
        check(ret, "acl.rt.get_run_mode")
        self.run_mode = mode
        #: The device's default context (never destroyed; released with the device).
        self.default_context = Context(self, handle, default=True)

    @property
    def runtime(self):
        return self._parent

    def context(self):
        """A new explicit context (``acl.rt.create_context``)."""
        self._check_open()
        return Context(self, None)

    def synchronize(self):
        """Waits for all work of the device (``acl.rt.synchronize_device``)."""
        self.default_context.synchronize()

    def mem_info(self, attr=C.ACL_HBM_MEM):
        """``(free, total)`` bytes (``acl.rt.get_mem_info``)."""
        self.default_context._check_open()
        with self.default_context._h.use():
            _bind_to(self.default_context._h)
            free, total, ret = acl.rt.get_mem_info(attr)
        check(ret, "acl.rt.get_mem_info")
        return free, total

    def _close(self, defer):
        """Resets the device; its explicit contexts must be released already
        (the default context goes with the device, once its own children are)."""
        if self._closed:
            return
        dc = self.default_context
        # The default context and its default stream are part of the device.
        if not dc._closed and not [c for c in dc._children if not c._closed and not getattr(c, "default", False)]:
            live = [c for c in self._children if not c._closed and c is not dc]
            if not live:
                dc._close_tree()
        super()._close(defer)

    def _release(self):
        check(acl.rt.reset_device(self.id), "acl.rt.reset_device")


class Context(_Node):
    """A context: explicit (``Device.context()``) or the device's default."""

    _order = 3
    _what = "context"

    def __init__(self, device, handle, default=False):
        self.default = default  # before it is a child (seen by a close)
        self._streams = []
        self._default_stream = None
        # The context's callback thread, once a stream has callbacks: key 0
        # (a dict, so that of two threads starting one, one wins atomically).
        self._reporters = {}
        super().__init__(device)
        if handle is None:
            handle, ret = acl.rt.create_context(device.id)
            if ret != 0:
                self._closed = True
                self._h._abandon()
                check(ret, "acl.rt.create_context")
        self._h._open(handle)
        self._device = device
        self._dev_id = device.id
        self._mode = device.run_mode
        # ``copy`` (documented below), bound once: the call goes straight to
        # Rust, which checks the context, resolves both sides, infers the
        # direction and copies, and calls ``check`` only on a refusal.
        self.copy = functools.partial(_copy_or_raise, check, self._h, self._dev_id, self._mode)

    @property
    def device(self):
        return self._parent

    @property
    def run_mode(self):
        return self._parent.run_mode

    @property
    def handle(self):
        """The raw ``aclrtContext`` (for raw ``acl`` calls: unchecked)."""
        return self._h.value

    def _bind(self):
        if self._closed:
            self._check_open()
        with self._h.use():
            _bind_to(self._h)

    def bind(self):
        """Makes this context current on the calling thread."""
        self._bind()

    @property
    def default_stream(self):
        """The context's default stream (``0``): never destroyed."""
        self._check_open()
        if self._default_stream is None or self._default_stream._closed:
            self._default_stream = Stream(self, default=True)
        return self._default_stream

    def stream(self):
        """A new stream (``acl.rt.create_stream``)."""
        self._check_open()
        return Stream(self)

    def event(self, timing=True):
        """A new event usable by ``Stream.wait`` and, with ``timing``, for
        ``end - start`` (``acl.rt.create_event_with_flag``)."""
        self._check_open()
        return Event(self, timing)

    def alloc(self, nbytes, policy=C.ACL_MEM_MALLOC_HUGE_FIRST):
        """Device memory (``acl.rt.malloc``); ``nbytes`` may be any integer
        (numpy's included). An allocation the runtime cannot satisfy raises
        :class:`AclMemoryError` (a ``MemoryError``)."""
        self._check_open()
        return DeviceBuffer(self, nbytes, policy)

    def pinned(self, nbytes):
        """Pinned host memory (``acl.rt.malloc_host``), zero-filled; device
        memory in ``ACL_DEVICE`` run mode."""
        self._check_open()
        return HostBuffer(self, nbytes)

    def copy(self, dst, src, nbytes=None):
        """A synchronous copy (``acl.rt.memcpy``) of ``nbytes`` (default: all
        of ``src``); the direction comes from where ``dst`` and ``src`` lie
        and the run mode. Each side is a buffer of this device or any object
        with the buffer protocol (``bytes`` as a source, ``bytearray``,
        ``memoryview``, a C-contiguous numpy array of a plain numeric dtype).

        (Each context binds this call to ``acl._native`` when it is made, so
        ``ctx.copy`` is that Rust call; this method is its meaning.)"""
        if self._closed:
            self._check_open()
        ret = _copy(self._h, self._dev_id, self._mode, dst, src, nbytes)
        if ret:
            check(ret, "acl.rt.memcpy")

    def _subscribe(self, stream):
        """The context's one callback thread, shared by all its streams. No
        lock: threads asking at once each start a thread, one wins
        (``dict.setdefault``) and the others stop theirs; each subscribes the
        stream, and the runtime accepts one subscription (a refusal because
        the winner's came first is success)."""
        if stream._subscribed:
            return
        reporter = self._reporters.get(0)
        if reporter is None:
            mine = _Reporter()
            reporter = self._reporters.setdefault(0, mine)
            if reporter is not mine:
                mine.stop()
        reporter.add(stream)
        stream._subscribed = True

    def _unsubscribe(self, stream):
        if not stream._subscribed:
            return
        stream._subscribed = False
        reporter = self._reporters.get(0)
        if reporter is not None:
            reporter.remove(stream)

    def synchronize(self):
        """Waits for all work of this context's device (``acl.rt.synchronize_device``)."""
        _no_wait_in_callback("synchronize_device")
        self._check_open()
        # What was queued on its streams before the wait is settled after it
        # (in Rust, in the same call as the wait; GIL released).
        streams = [c._h for c in self._children if isinstance(c, Stream)]
        check(_native._sync_device(self._h, streams), "acl.rt.synchronize_device")

    def close(self):
        if self.default and not self._closed:
            raise AclUsageError("the default context cannot be destroyed; reset its device instead")
        super().close()

    def _close_tree(self):
        for child in self._children:  # in close order
            child._close_tree()
        self._stop_reporter()
        if self.default:
            if self._closed:
                return
            if self._children:  # buffers waiting for their last view
                self._wait_for_children()
            else:
                self._do_release()
                self._released()
        else:
            self._close(True)

    def _stop_reporter(self):
        reporter = self._reporters.pop(0, None)  # one caller gets it
        if reporter is not None:
            reporter.stop()

    def _release(self):
        self._stop_reporter()
        if not self.default:  # the default context goes with its device
            check(acl.rt.destroy_context(self._h.value), "acl.rt.destroy_context")


_SUBSCRIBED_ALREADY = 107011  # ACL_ERROR_RT_STREAM_SUBSCRIBE


class _Reporter:
    """One thread that serves the callbacks of several streams
    (``subscribe_report`` per stream, one ``process_report`` loop)."""

    def __init__(self):
        self._stopping = False  # a plain flag: no lock a fork could inherit held
        self._streams = {}  # stream -> True once subscribed
        self._thread = threading.Thread(target=self._loop, name="aclrt callbacks", daemon=True)
        self._thread.start()

    def add(self, stream):
        if stream in self._streams:
            return
        ret = acl.rt.subscribe_report(self._thread.ident, stream.handle)
        if ret == _SUBSCRIBED_ALREADY:
            # A racing thread's subscription of it to this thread came first:
            # it is booked within a few bytecodes (bounded: a signal handler
            # racing the very thread it interrupted gets the error instead).
            for _ in range(200):
                if self._streams.get(stream):
                    return
                time.sleep(0.001)
        if ret == 0:
            self._streams[stream] = True
        check(ret, "acl.rt.subscribe_report")

    def remove(self, stream):
        if self._streams.pop(stream, None):  # one caller gets it
            self.unsubscribe(stream)

    def unsubscribe(self, stream):
        ret = acl.rt.unsubscribe_report(self._thread.ident, stream.handle)
        check(ret, "acl.rt.unsubscribe_report")

    def _loop(self):
        while not self._stopping:
            acl.rt.process_report(50)

    def stop(self):
        err = None
        for stream in list(self._streams.keys()):
            try:
                self.remove(stream)
            except Exception as e:  # noqa: BLE001 - report the first after joining
                err = err or e
        self._stopping = True
        if self._thread is not threading.current_thread():
            self._thread.join()
        if err is not None:
            raise err


class Stream(_Node):
    """An in-order queue of asynchronous work."""

    _order = 0
    _what = "stream"

    def __init__(self, ctx, default=False):
        self.default = default  # before it is a child (seen by a close)
        self._subscribed = False
        self._callback_errors = []
        super().__init__(ctx)
        if default:
            self._h._open(0)
        else:
            try:  # the context is alive: it counts this stream
                _bind_to(ctx._h)
                handle, ret = acl.rt.create_stream()
                check(ret, "acl.rt.create_stream")
            except BaseException:
                self._closed = True
                self._h._abandon()
                raise
            self._h._open(handle)

    @property
    def context(self):
        return self._parent

    @property
    def handle(self):
        """The raw ``aclrtStream`` (``0``: the default stream; for raw
        ``acl`` calls: unchecked)."""
        return self._h.value

    def copy(self, dst, src, nbytes=None):
        """An asynchronous copy (``acl.rt.memcpy_async``) between runtime
        buffers (device or pinned); both stay in use until a synchronisation
        covers it (this stream's, its context's, or an event recorded after
        it: ``event.synchronize()`` or a true ``event.query()``)."""
        ctx = self._parent
        self._check_open()
        nbytes = _plain_int(nbytes)
        # Rust books the buffers' use with the call (both held until then).
        ret = _copy(ctx._h, ctx._dev_id, ctx._mode, dst, src, nbytes, self._h)
        check(ret, "acl.rt.memcpy_async")

    def memset(self, buf, value, nbytes=None):
        """An asynchronous memset (``acl.rt.memset_async``)."""
        ctx = self._parent
        self._check_open()
        b = _runtime_buffer(ctx, buf, "memset")
        n = b.nbytes if nbytes is None else _count(nbytes, b.nbytes, "memset")
        value = _plain_int(value)
        ret = b._memset(ctx._h, value, n, self._h)  # booked in Rust with the call
        check(ret, "acl.rt.memset_async")

    def record(self, event):
        """Records ``event`` here (``acl.rt.record_event``)."""
        self._check_open()
        event._check_same_device(self)
        # The event's mark (the work it covers) is taken in Rust with the record.
        ret = _native._record(self._parent._h, self._h, event._h)
        check(ret, "acl.rt.record_event")
        event._recorded = True
        event._stream = self
        return event

    def wait(self, event):
        """Later work of this stream waits for ``event`` (``acl.rt.stream_wait_event``)."""
        self._check_open()
        event._check_same_device(self)
        if not event._recorded:
            raise AclUsageError("stream.wait(event) of an event that was never recorded")
        with self._h.use() as s, event._h.use() as e:
            _bind_to(self._parent._h)
            ret = acl.rt.stream_wait_event(s, e)
        check(ret, "acl.rt.stream_wait_event")

    def add_callback(self, fn, *args):
        """Runs ``fn(*args)`` on a callback thread once the work queued before
        it is done; later work waits for it. An exception it raises is
        re-raised (as :class:`CallbackError`) by the next ``synchronize()``."""
        if not callable(fn):
            raise TypeError("add_callback needs a callable")
        self._check_open()
        use = self._h.use()  # ends when this call returns
        _bind_to(self._parent._h)
        if not self._subscribed and _native._subscriber(self._h) is None:
            self._parent._subscribe(self)  # unless a server (stream.serve()) serves it
        errors = self._callback_errors

        stream = self

        def run(_data):
            _tls.callback_stream = stream
            try:
                fn(*args)
            except BaseException as e:  # reported by synchronize()
                errors.append(e)
            finally:
                _tls.callback_stream = None

        with use as s:
            ret = acl.rt.launch_callback(run, None, C.ACL_CALLBACK_BLOCK, s)
        check(ret, "acl.rt.launch_callback")

    def synchronize(self):
        """Waits for all work queued here (``acl.rt.synchronize_stream``)."""
        self._check_open()
        _no_wait_in_callback("stream.synchronize()", self)
        # No release while it waits (GIL released); what was queued before
        # the wait is settled after it, in the same Rust call.
        ret = _native._sync_stream(self._parent._h, self._h)
        check(ret, "acl.rt.synchronize_stream")
        if self._callback_errors:
            err = self._callback_errors.pop(0)
            self._callback_errors.clear()
            raise CallbackError(f"a stream callback raised {type(err).__name__}: {err}") from err

    async def synchronize_async(self):
        """``await stream.synchronize_async()``: :meth:`synchronize` for
        ``asyncio``; the event loop's thread waits no longer than a short
        poll (then the wait runs on a waiting thread, GIL released).
        Cancel-safe: a cancelled await
        leaves the wait to finish (the buffers its work uses are settled
        then, and the stream cannot be released meanwhile)."""
        self._check_open()
        ret = await _awaited_wait(0, self._parent._h, self._h)
        check(ret, "acl.rt.synchronize_stream")
        if self._callback_errors:
            err = self._callback_errors.pop(0)
            self._callback_errors.clear()
            raise CallbackError(f"a stream callback raised {type(err).__name__}: {err}") from err

    async def to_numpy_async(self, src, dtype="uint8", shape=None):
        """``await stream.to_numpy_async(buf)``: a new numpy array holding a
        copy of runtime buffer ``src``, queued on this stream (after the
        work queued before it) and awaited. Cancel-safe: a cancelled await
        leaves the copy's staging buffer to be released once the stream's
        work is done."""
        dt = _plain_dtype(dtype)
        ctx = self._parent
        src = _runtime_buffer(ctx, src, "to_numpy_async")
        staging = ctx.pinned(src.nbytes)
        try:
            self.copy(staging, src)
            await self.synchronize_async()
            return staging.to_numpy(dt, shape)
        except BaseException:
            _release_when_done(self, staging)
            raise
        finally:
            if not staging._busy:
                staging.close()

    def close(self):
        if self.default and not self._closed:
            raise AclUsageError("the default stream cannot be destroyed")
        super().close()

    def _close_tree(self):
        if self.default:
            if not self._closed:
                try:
                    self.synchronize()  # raises what its callbacks raised
                finally:
                    self._do_release()
                    self._released()
        else:
            self._close(True)

    def _wait_for_release(self):
        _native._sync_stream(self._parent._h, self._h)

    def _stop_reporter(self):
        self._parent._unsubscribe(self)

    def _release(self):
        _no_wait_in_callback("releasing a stream", self)
        _bind_to(self._parent._h)  # alive: it counts this stream
        handle = self._h.value  # granted to this release: no use in flight
        ret = acl.rt.synchronize_stream(handle)
        if ret == 0:
            _native._forget_stream(self._h)
        self._stop_reporter()
        check(ret, "acl.rt.synchronize_stream")
        if not self.default:
            check(acl.rt.destroy_stream(handle), "acl.rt.destroy_stream")


class Event(_Node):
    """An event; ``end - start`` is the time between two records in ms."""

    _order = 1
    _what = "event"

    def __init__(self, ctx, timing=True):
        self.timing = timing  # before it is a child (seen by a close)
        self._recorded = False
        self._stream = None  # the stream of the last record (for messages)
        super().__init__(ctx)
        flags = C.ACL_EVENT_SYNC | (C.ACL_EVENT_TIME_LINE if timing else 0)
        try:  # the context is alive: it counts this event
            _bind_to(ctx._h)
            handle, ret = acl.rt.create_event_with_flag(flags)
            check(ret, "acl.rt.create_event_with_flag")
        except BaseException:
            self._closed = True
            self._h._abandon()
            raise
        self._h._open(handle)

    @property
    def handle(self):
        """The raw ``aclrtEvent`` (for raw ``acl`` calls: unchecked)."""
        return self._h.value

    def _check_same_device(self, stream):
        self._check_open()
        if stream._parent._parent is not self._parent._parent:
            raise AclUsageError("an event of one device used with a stream of another")

    @property
    def recorded(self):
        return self._recorded

    def synchronize(self):
        """Waits until the recorded work is done (``acl.rt.synchronize_event``);
        the buffers that work used may be viewed, copied synchronously and
        freed again (the double-buffering idiom)."""
        self._check_open()
        if (
            self._stream is not None
            and _native._serving(self._stream._h)
            and not _native._query_event(self._parent._h, self._h)[0]
        ):
            _no_wait_in_callback("event.synchronize()", self._stream)
        if self._stream is not None and getattr(_tls, "callback_stream", None) is not None:
            # From a callback: refused unless the recorded work is done.
            if not _native._query_event(self._parent._h, self._h)[0]:
                _no_wait_in_callback("event.synchronize()", self._stream)
        # The mark is taken before the wait and settled after it, in Rust
        # (a re-record meanwhile settles nothing); GIL released.
        check(_native._sync_event(self._parent._h, self._h), "acl.rt.synchronize_event")

    def query(self):
        """True when the last record has completed (``acl.rt.query_event_status``);
        then, as after ``synchronize()``, the buffers its work used are free again."""
        self._check_open()
        done, ret = _native._query_event(self._parent._h, self._h)
        check(ret, "acl.rt.query_event_status")
        return done

    def elapsed_since(self, start):
        """Milliseconds from ``start``'s record to this one's
        (``acl.rt.event_elapsed_time``); both must be timing events, recorded."""
        if not isinstance(start, Event):
            raise TypeError(
                f"elapsed_since takes the start Event, not {type(start).__name__}"
            )
        self._check_open()
        start._check_open()
        for e, name in ((start, "start"), (self, "end")):
            if not e.timing:
                raise AclUsageError(f"the {name} event was created with timing=False")
            if not e._recorded:
                raise AclUsageError(f"the {name} event was never recorded")
        with start._h.use() as a, self._h.use() as b:
            _bind_to(self._parent._h)
            ms, ret = acl.rt.event_elapsed_time(a, b)
        check(ret, "acl.rt.event_elapsed_time")
        return ms

    async def synchronize_async(self):
        """``await event`` / ``await event.synchronize_async()``:
        :meth:`synchronize` for ``asyncio`` (the event loop waits no longer
        than a short poll; cancel-safe, as :meth:`Stream.synchronize_async`)."""
        self._check_open()
        check(await _awaited_wait(1, self._parent._h, self._h), "acl.rt.synchronize_event")

    def __await__(self):
        return self.synchronize_async().__await__()

    def __sub__(self, start):
        if not isinstance(start, Event):
            return NotImplemented
        return self.elapsed_since(start)

    def _wait_for_release(self):
        _native._sync_event(self._parent._h, self._h)

    def _release(self):
        _bind_to(self._parent._h)  # alive: it counts this event
        check(acl.rt.destroy_event(self._h.value), "acl.rt.destroy_event")
        _native._forget_event(self._h)


class _Buffer(_Node):
    """Runtime memory owned by ``acl._native.Memory`` (the second base of
    :class:`DeviceBuffer` and :class:`HostBuffer`)."""

    _order = 2
    where = "device"
    _host = False
    _children = ()  # a leaf of the tree
    _parent_claimed = _native.Memory._parent_claimed
    _ipc_exports = ()  # open IPC exports of it (set by aclrt._resources)

    def __init__(self, ctx, nbytes, policy=C.ACL_MEM_MALLOC_HUGE_FIRST):
        n = _size(nbytes)
        super().__init__(ctx)  # checks ctx first
        self._device = ctx._device
        try:  # a child of the context's handle (refused once it is released)
            ret = self._alloc(self._host, n, policy, ctx._dev_id, ctx._h)
        except BaseException:
            self._closed = True
            raise
        if ret != 0:
            self._closed = True
            check(ret, "acl.rt.malloc_host" if self._host else "acl.rt.malloc")

    @property
    def context(self):
        return self._parent

    @property
    def ptr(self):
        """The address (for raw ``acl`` calls); checked to be live."""
        self._check_open()
        return self._ptr

    def _close(self, defer):
        """Frees the memory; with live views, ``close()`` raises and a
        with-block's release waits for the last view (``defer``)."""
        if self._closed:
            return
        exports = [e for e in self._ipc_exports if not e._closed]
        if exports and not defer:
            raise AclUsageError(
                f"cannot free the {self._what}: {len(exports)} IPC export(s) of it are open; "
                "close them first"
            )
        for e in exports:  # a with-block: exports are closed first
            e.close()
        # Refused (in Rust, in the step that would free) while queued stream
        # work uses it.
        ret = self._free(defer, self._last_view_gone if defer else None)
        if ret is None:
            if not defer:
                raise AclUsageError(
                    f"cannot free the {self._what}: {self._exports} view(s) of it "
                    "(numpy arrays, memoryviews) are alive"
                )
            self._closed = True
            return
        self._released()
        check(ret, "acl.rt.free_host" if self._host else "acl.rt.free")

    def _last_view_gone(self):
        """Called by ``Memory`` when the last view of a buffer whose release
        was deferred dies: free it, then release the ancestors that waited."""
        ret = self._free(False)
        self._released()
        check(ret, "acl.rt.free_host" if self._host else "acl.rt.free")

    def _release(self):  # a buffer is released by _close / _last_view_gone only
        raise AssertionError("unreachable")

    def to_numpy(self, dtype="uint8", shape=None):
        """A new numpy array holding a copy of the contents (a synchronous
        copy); ``dtype`` must be a plain numeric dtype."""
        self._check_open()
        dt = _plain_dtype(dtype)
        out = _np().empty(self.nbytes // dt.itemsize, dtype=dt)
        self._parent.copy(out, self, out.nbytes)
        return out if shape is None else out.reshape(shape)

    def __len__(self):
        return self.nbytes

    def __repr__(self):
        state = "closed" if self._closed else hex(self._ptr)
        return f"<{type(self).__name__} {self.nbytes} B at {state}>"


class DeviceBuffer(_Buffer, _native.Memory):
    """Device memory (``acl.rt.malloc``); the host cannot view it (copy it:
    :meth:`to_numpy`, ``ctx.copy``)."""

    _what = "device buffer"
    where = "device"
    _host = False

    def __array__(self, dtype=None, copy=None):
        """Refused: device memory cannot be viewed from the host (numpy would
        otherwise wrap the buffer in a 0-d object array)."""
        self._check_open()
        raise TypeError(
            "device memory cannot be viewed from the host: copy it (to_numpy(), ctx.copy)"
        )

    def fill(self, value):
        """Sets every byte (``acl.rt.memset``)."""
        self._check_open()
        if self._busy:
            raise AclUsageError("the device buffer is used by queued stream work; synchronize first")
        ctx = self._parent
        if ctx._closed:
            ctx._check_open()
        check(self._memset(ctx._h, value, self.nbytes), "acl.rt.memset")


class HostBuffer(_Buffer, _native.Memory):
    """Pinned host memory (``acl.rt.malloc_host``), zero-filled at creation;
    device memory in ``ACL_DEVICE`` run mode (the application runs on the
    device, so it may still view it).

    It supports Python's buffer protocol: ``memoryview(buf)``,
    ``np.asarray(buf)`` (``uint8``) and :meth:`numpy` are views (no copy)
    that keep the memory alive; :meth:`to_numpy` and :meth:`tobytes` copy."""

    _what = "pinned buffer"
    where = "pinned"
    _host = True

    def _view(self):
        self._check_open()
        if self._busy:
            raise AclUsageError(
                "the pinned buffer is used by queued stream work; synchronize before touching it"
            )
        try:
            return memoryview(self)
        except BufferError as e:
            raise AclUsageError(str(e)) from None

    def numpy(self, dtype="uint8", shape=None):
        """A writable numpy view (no copy) of a plain numeric ``dtype``. While
        any view (or an array made from one) is alive, ``close()`` refuses
        and a with-block's release waits for the last one."""
        dt = _plain_dtype(dtype)
        with self._view() as raw:
            arr = _np().frombuffer(raw, dtype=dt, count=self.nbytes // dt.itemsize)
        return arr if shape is None else arr.reshape(shape)

    def write(self, data, offset=0):
        """Copies ``bytes``-like ``data`` (plain numeric elements) in at ``offset``."""
        data = memoryview(data)
        if not _plain_format(data.format):
            raise TypeError(
                f"only plain numeric data (bool, integers, floats, complex) is written, "
                f"not element format {data.format!r}"
            )
        data = data.cast("B")
        offset = _index(offset, "offset")
        if offset < 0 or offset + len(data) > self.nbytes:
            raise ValueError(f"{len(data)} bytes at offset {offset} do not fit {self.nbytes}")
        with self._view() as raw:
            raw[offset : offset + len(data)] = data

    def __array__(self, dtype=None, copy=None):
        """``np.asarray(buf)``: the view of :meth:`numpy` (``uint8``), so a
        closed or busy buffer raises as ``memoryview(buf)`` does (numpy
        would otherwise wrap the refused buffer in a 0-d object array)."""
        if copy:
            return self.to_numpy(dtype or "uint8")
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def tobytes(self, nbytes=None, offset=0):
        """A copy of the contents."""
        offset = _index(offset, "offset")
        n = self.nbytes - offset if nbytes is None else _index(nbytes, "nbytes")
        if offset < 0 or n < 0 or offset + n > self.nbytes:
            raise ValueError(f"{n} bytes at offset {offset} do not fit {self.nbytes}")
        with self._view() as raw:
            return bytes(raw[offset : offset + n])


def _index(n, what):
    """An integer argument (``__index__``), not a bool."""
    if isinstance(n, bool):
        raise TypeError(f"{what} must be an integer, not {n!r}")
    return operator.index(n)


def _release_when_done(stream, buf):
    """Releases ``buf`` once ``stream``'s work queued so far is done (a
    cancelled await's staging buffer), from a waiting thread."""
    if buf._closed or not buf._busy:
        return

    def release(_ret):
        try:
            buf.close()
        except Exception:  # noqa: BLE001 - freed with its context then
            pass

    try:
        _native._wait_async(0, stream._parent._h, stream._h, release)
    except Exception:  # noqa: BLE001 - the stream is gone: freed with its context
        pass


def _count(nbytes, limit, what):
    if isinstance(nbytes, bool):
        raise TypeError(f"{what}: nbytes must be an integer, not {nbytes!r}")
    nbytes = operator.index(nbytes)
    if nbytes < 0:
        raise ValueError(f"{what}: nbytes must be non-negative, not {nbytes!r}")
    if nbytes > limit:
        raise ValueError(f"{what}: {nbytes} bytes do not fit {limit}")
    return nbytes


def _runtime_buffer(ctx, buf, what):
    if not isinstance(buf, _Buffer):
        raise AclUsageError(f"{what} on a stream takes runtime memory (DeviceBuffer or HostBuffer)")
    buf._check_open()
    if buf._parent._parent is not ctx._parent:
        raise AclUsageError(f"{what}: the buffer belongs to another device")
    return buf


Device._parent_type = Runtime
Context._parent_type = Device
Stream._parent_type = Event._parent_type = _Buffer._parent_type = Context

_PLACES = {"device": 0, "pinned": 1, "pageable": 2}


def kind_of(dst_where, src_where, run_mode):
    """The memcpy kind for a copy into ``dst_where`` from ``src_where``
    (each ``"device"``, ``"pinned"`` or ``"pageable"``) in ``run_mode``.

    In ``ACL_HOST`` mode pinned and pageable memory are host memory. In
    ``ACL_DEVICE`` mode the application runs on the device: runtime memory
    (``malloc`` and ``malloc_host``) is device memory, so copies between it
    and anything are device-to-device; only pageable-to-pageable is
    host-to-host. (The table lives in ``acl._native``, which copies use.)"""
    try:
        return _native._kind_of(_PLACES[dst_where], _PLACES[src_where], run_mode)
    except KeyError:
        raise ValueError('a side is "device", "pinned" or "pageable"') from None
