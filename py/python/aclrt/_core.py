"""The resource tree: Runtime → Device → Context → Stream / Event / buffers.

Every object is released exactly once, after its children:

* ``close()`` releases one object and raises :class:`AclUsageError` while it
  has live children (a parent released before its children);
* leaving a ``with`` block (normally or by an exception) closes the object's
  whole subtree in the only legal order: streams (synchronized first), then
  events, then buffers, then contexts, then the object itself.

Each call first makes the object's context current on the calling thread
(one ``acl.rt.get_context`` and, when it differs, ``acl.rt.set_context``),
so objects may be used from any thread. Nothing here touches memory the
layer cannot prove is live: numpy views keep their buffer alive, and a
buffer with live views or pending stream work refuses to be freed.
"""

import ctypes
import threading
import weakref

import acl

from . import constants as C
from .errors import AclUsageError, CallbackError, check

_np_module = None
_tls = threading.local()  # .callback_stream: set while a stream callback runs


def _no_wait_in_callback(what, stream=None):
    """A blocking callback holds its stream until it returns: waiting for
    that stream (or the whole device) from inside it can never finish."""
    cb = getattr(_tls, "callback_stream", None)
    if cb is not None and (stream is None or stream is cb):
        raise AclUsageError(
            f"{what} from inside a callback of the stream it waits for would deadlock"
        )


def _np():
    global _np_module
    if _np_module is None:
        import numpy

        _np_module = numpy
    return _np_module


class _Node:
    _order = 9  # close order among siblings: lower first
    _what = "resource"

    def __init__(self, parent):
        self._parent = parent
        self._children = []
        self._closed = False
        if parent is not None:
            parent._children.append(self)

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
        """Releases this object; its children must be released already."""
        if self._closed:
            return
        live = [c for c in self._children if not c._closed]
        if live:
            kinds = ", ".join(sorted({c._what for c in live}))
            raise AclUsageError(
                f"cannot release the {self._what} before its {len(live)} live "
                f"children ({kinds}): close them first, or leave its with-block, "
                "which releases them in order"
            )
        self._release()
        self._closed = True
        if self._parent is not None:
            try:
                self._parent._children.remove(self)
            except ValueError:
                pass

    def _close_tree(self):
        for child in sorted(list(self._children), key=lambda c: c._order):
            child._close_tree()
        self.close()

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
        check(ret, "acl.init")

    def device(self, device_id=0):
        """Sets ``device_id`` (``acl.rt.set_device``); reset when released."""
        self._check_open()
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
            runtime._children.remove(self)
            raise
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
        self.default_context._bind()
        free, total, ret = acl.rt.get_mem_info(attr)
        check(ret, "acl.rt.get_mem_info")
        return free, total

    def close(self):
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
        super().close()

    def _release(self):
        check(acl.rt.reset_device(self.id), "acl.rt.reset_device")


class Context(_Node):
    """A context: explicit (``Device.context()``) or the device's default."""

    _order = 3
    _what = "context"

    def __init__(self, device, handle, default=False):
        super().__init__(device)
        self.default = default
        self._streams = []
        if handle is None:
            handle, ret = acl.rt.create_context(device.id)
            if ret != 0:
                self._closed = True
                device._children.remove(self)
                check(ret, "acl.rt.create_context")
        self.handle = handle
        self._default_stream = None
        self._device = device
        mode = device.run_mode
        self._kinds = {(d, s_): kind_of(d, s_, mode) for d in _WHERE for s_ in _WHERE}

    @property
    def device(self):
        return self._parent

    @property
    def run_mode(self):
        return self._parent.run_mode

    def _bind(self):
        if self._closed:
            self._check_open()
        cur, ret = acl.rt.get_context()
        if ret or cur != self.handle:
            check(acl.rt.set_context(self.handle), "acl.rt.set_context")

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
        self._bind()
        return Stream(self)

    def event(self, timing=True):
        """A new event usable by ``Stream.wait`` and, with ``timing``, for
        ``end - start`` (``acl.rt.create_event_with_flag``)."""
        self._bind()
        return Event(self, timing)

    def alloc(self, nbytes, policy=C.ACL_MEM_MALLOC_HUGE_FIRST):
        """Device memory (``acl.rt.malloc``)."""
        self._bind()
        return DeviceBuffer(self, nbytes, policy)

    def pinned(self, nbytes):
        """Pinned host memory (``acl.rt.malloc_host``), zero-filled; device
        memory in ``ACL_DEVICE`` run mode."""
        self._bind()
        return HostBuffer(self, nbytes)

    def copy(self, dst, src, nbytes=None):
        """A synchronous copy (``acl.rt.memcpy``); the direction comes from
        where ``dst`` and ``src`` lie and the run mode."""
        if self._closed:
            self._check_open()
        dptr, dmax, sptr, n, kind = _plan(self, dst, src, nbytes, False)
        self._bind()
        ret = acl.rt.memcpy(dptr, dmax, sptr, n, kind)
        if ret:
            check(ret, "acl.rt.memcpy")

    def synchronize(self):
        """Waits for all work of this context's device (``acl.rt.synchronize_device``)."""
        _no_wait_in_callback("synchronize_device")
        self._bind()
        check(acl.rt.synchronize_device(), "acl.rt.synchronize_device")
        for child in self._children:
            if isinstance(child, Stream):
                child._settle()

    def close(self):
        if self.default and not self._closed:
            raise AclUsageError("the default context cannot be destroyed; reset its device instead")
        super().close()

    def _close_tree(self):
        for child in sorted(list(self._children), key=lambda c: c._order):
            child._close_tree()
        if self.default:
            self._closed = True
            if self._parent is not None and self in self._parent._children:
                self._parent._children.remove(self)
        else:
            self.close()

    def _release(self):
        check(acl.rt.destroy_context(self.handle), "acl.rt.destroy_context")


class _Reporter:
    """The thread that serves a stream's callbacks (``process_report``)."""

    def __init__(self, stream):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="aclrt callbacks", daemon=True)
        self._thread.start()
        self._stream = stream
        check(acl.rt.subscribe_report(self._thread.ident, stream.handle), "acl.rt.subscribe_report")

    def _loop(self):
        while not self._stop.is_set():
            acl.rt.process_report(50)

    def stop(self):
        ret = acl.rt.unsubscribe_report(self._thread.ident, self._stream.handle)
        self._stop.set()
        self._thread.join()
        check(ret, "acl.rt.unsubscribe_report")


class Stream(_Node):
    """An in-order queue of asynchronous work."""

    _order = 0
    _what = "stream"

    def __init__(self, ctx, default=False):
        super().__init__(ctx)
        self.default = default
        self._pending = set()
        self._reporter = None
        self._callback_errors = []
        if default:
            self.handle = 0
        else:
            handle, ret = acl.rt.create_stream()
            if ret != 0:
                self._closed = True
                ctx._children.remove(self)
                check(ret, "acl.rt.create_stream")
            self.handle = handle

    @property
    def context(self):
        return self._parent

    def _use(self, buf):
        self._pending.add(buf)
        buf._streams.add(self)

    def _settle(self):
        for buf in self._pending:
            buf._streams.discard(self)
        self._pending.clear()

    def copy(self, dst, src, nbytes=None):
        """An asynchronous copy (``acl.rt.memcpy_async``) between runtime
        buffers (device or pinned); both stay in use until ``synchronize()``."""
        ctx = self._parent
        self._check_open()
        dptr, dmax, sptr, n, kind = _plan(ctx, dst, src, nbytes, True)
        ctx._bind()
        check(acl.rt.memcpy_async(dptr, dmax, sptr, n, kind, self.handle), "acl.rt.memcpy_async")
        self._use(dst)
        self._use(src)

    def memset(self, buf, value, nbytes=None):
        """An asynchronous memset (``acl.rt.memset_async``)."""
        ctx = self._parent
        ctx._bind()
        self._check_open()
        b = _runtime_buffer(ctx, buf, "memset")
        n = b.nbytes if nbytes is None else _count(nbytes, b.nbytes, "memset")
        check(acl.rt.memset_async(b.ptr, b.nbytes, value, n, self.handle), "acl.rt.memset_async")
        self._use(b)

    def record(self, event):
        """Records ``event`` here (``acl.rt.record_event``)."""
        self._parent._bind()
        self._check_open()
        event._check_same_device(self)
        check(acl.rt.record_event(event.handle, self.handle), "acl.rt.record_event")
        event._recorded = True
        return event

    def wait(self, event):
        """Later work of this stream waits for ``event`` (``acl.rt.stream_wait_event``)."""
        self._parent._bind()
        self._check_open()
        event._check_same_device(self)
        if not event._recorded:
            raise AclUsageError("stream.wait(event) of an event that was never recorded")
        check(acl.rt.stream_wait_event(self.handle, event.handle), "acl.rt.stream_wait_event")

    def add_callback(self, fn, *args):
        """Runs ``fn(*args)`` on a callback thread once the work queued before
        it is done; later work waits for it. An exception it raises is
        re-raised (as :class:`CallbackError`) by the next ``synchronize()``."""
        if not callable(fn):
            raise TypeError("add_callback needs a callable")
        self._parent._bind()
        self._check_open()
        if self._reporter is None:
            self._reporter = _Reporter(self)
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

        check(
            acl.rt.launch_callback(run, None, C.ACL_CALLBACK_BLOCK, self.handle),
            "acl.rt.launch_callback",
        )

    def synchronize(self):
        """Waits for all work queued here (``acl.rt.synchronize_stream``)."""
        self._check_open()
        _no_wait_in_callback("stream.synchronize()", self)
        self._parent._bind()
        check(acl.rt.synchronize_stream(self.handle), "acl.rt.synchronize_stream")
        self._settle()
        if self._callback_errors:
            err = self._callback_errors.pop(0)
            self._callback_errors.clear()
            raise CallbackError(f"a stream callback raised {type(err).__name__}: {err}") from err

    def close(self):
        if self.default and not self._closed:
            raise AclUsageError("the default stream cannot be destroyed")
        super().close()

    def _close_tree(self):
        if self.default:
            if not self._closed:
                try:
                    self.synchronize()
                finally:
                    self._stop_reporter()
                    self._closed = True
                    if self in self._parent._children:
                        self._parent._children.remove(self)
        else:
            self.close()

    def _stop_reporter(self):
        if self._reporter is not None:
            reporter, self._reporter = self._reporter, None
            reporter.stop()

    def _release(self):
        _no_wait_in_callback("releasing a stream", self)
        self._parent._bind()
        ret = acl.rt.synchronize_stream(self.handle)
        self._settle()
        self._stop_reporter()
        check(ret, "acl.rt.synchronize_stream")
        check(acl.rt.destroy_stream(self.handle), "acl.rt.destroy_stream")


class Event(_Node):
    """An event; ``end - start`` is the time between two records in ms."""

    _order = 1
    _what = "event"

    def __init__(self, ctx, timing=True):
        super().__init__(ctx)
        self.timing = timing
        self._recorded = False
        flags = C.ACL_EVENT_SYNC | (C.ACL_EVENT_TIME_LINE if timing else 0)
        handle, ret = acl.rt.create_event_with_flag(flags)
        if ret != 0:
            self._closed = True
            ctx._children.remove(self)
            check(ret, "acl.rt.create_event_with_flag")
        self.handle = handle

    def _check_same_device(self, stream):
        self._check_open()
        if stream._parent._parent is not self._parent._parent:
            raise AclUsageError("an event of one device used with a stream of another")

    @property
    def recorded(self):
        return self._recorded

    def synchronize(self):
        """Waits until the recorded work is done (``acl.rt.synchronize_event``)."""
        self._parent._bind()
        check(acl.rt.synchronize_event(self.handle), "acl.rt.synchronize_event")

    def query(self):
        """True when the last record has completed (``acl.rt.query_event_status``)."""
        self._parent._bind()
        status, ret = acl.rt.query_event_status(self.handle)
        check(ret, "acl.rt.query_event_status")
        return status == C.ACL_EVENT_RECORDED_STATUS_COMPLETE

    def elapsed_since(self, start):
        """Milliseconds from ``start``'s record to this one's
        (``acl.rt.event_elapsed_time``); both must be timing events, recorded."""
        if not isinstance(start, Event):
            return NotImplemented
        self._parent._bind()
        start._check_open()
        for e, name in ((start, "start"), (self, "end")):
            if not e.timing:
                raise AclUsageError(f"the {name} event was created with timing=False")
            if not e._recorded:
                raise AclUsageError(f"the {name} event was never recorded")
        ms, ret = acl.rt.event_elapsed_time(start.handle, self.handle)
        check(ret, "acl.rt.event_elapsed_time")
        return ms

    def __sub__(self, start):
        return self.elapsed_since(start)

    def _release(self):
        self._parent._bind()
        check(acl.rt.destroy_event(self.handle), "acl.rt.destroy_event")


class _Buffer(_Node):
    _order = 2
    where = "device"

    def __init__(self, ctx, nbytes):
        super().__init__(ctx)
        if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes <= 0:
            self._closed = True
            ctx._children.remove(self)
            raise ValueError(f"a buffer needs a positive int size, not {nbytes!r}")
        self.nbytes = nbytes
        self._device = ctx._device
        self._streams = set()
        self._views = {}  # id -> weakref of each live ctypes view

    @property
    def context(self):
        return self._parent

    @property
    def ptr(self):
        """The address (for raw ``acl`` calls); checked to be live."""
        self._check_open()
        return self._ptr

    def _check_free(self):
        if self._streams:
            raise AclUsageError(
                f"cannot free the {self._what}: work queued on {len(self._streams)} "
                "stream(s) still uses it; synchronize first"
            )
        if len(self._views):
            raise AclUsageError(
                f"cannot free the {self._what}: {len(self._views)} numpy view(s) of it are alive"
            )

    def close(self):
        if not self._closed:
            self._check_free()
        super().close()

    def __len__(self):
        return self.nbytes

    def __repr__(self):
        state = "closed" if self.closed else hex(self._ptr)
        return f"<{type(self).__name__} {self.nbytes} B at {state}>"


class DeviceBuffer(_Buffer):
    """Device memory (``acl.rt.malloc``); the host cannot view it."""

    _what = "device buffer"
    where = "device"

    def __init__(self, ctx, nbytes, policy=C.ACL_MEM_MALLOC_HUGE_FIRST):
        super().__init__(ctx, nbytes)
        ptr, ret = acl.rt.malloc(nbytes, policy)
        if ret != 0:
            self._closed = True
            ctx._children.remove(self)
            check(ret, "acl.rt.malloc")
        self._ptr = ptr

    def fill(self, value):
        """Sets every byte (``acl.rt.memset``)."""
        self._check_open()
        self._parent._bind()
        check(acl.rt.memset(self._ptr, self.nbytes, value, self.nbytes), "acl.rt.memset")

    def to_numpy(self, dtype="uint8", shape=None):
        """A new host array with a copy of the contents (a synchronous copy)."""
        self._check_open()
        np = _np()
        dt = np.dtype(dtype)
        out = np.empty(self.nbytes // dt.itemsize, dtype=dt)
        self._parent.copy(out, self, out.nbytes)
        return out if shape is None else out.reshape(shape)

    def _release(self):
        self._parent._bind()
        check(acl.rt.free(self._ptr), "acl.rt.free")


class HostBuffer(_Buffer):
    """Pinned host memory (``acl.rt.malloc_host``), zero-filled at creation;
    device memory in ``ACL_DEVICE`` run mode (the application runs on the
    device, so it may still view it)."""

    _what = "pinned buffer"
    where = "pinned"

    def __init__(self, ctx, nbytes):
        super().__init__(ctx, nbytes)
        ptr, ret = acl.rt.malloc_host(nbytes)
        if ret != 0:
            self._closed = True
            ctx._children.remove(self)
            check(ret, "acl.rt.malloc_host")
        self._ptr = ptr
        ret = acl.rt.memset(ptr, nbytes, 0, nbytes)
        if ret != 0:
            acl.rt.free_host(ptr)
            self._closed = True
            ctx._children.remove(self)
            check(ret, "acl.rt.memset")

    def _raw(self):
        self._check_open()
        if self._streams:
            raise AclUsageError(
                "the pinned buffer is used by queued stream work; synchronize before touching it"
            )
        raw = (ctypes.c_ubyte * self.nbytes).from_address(self._ptr)
        raw._aclrt_buffer = self  # the view keeps the buffer object alive
        views = self._views
        key = id(raw)
        views[key] = weakref.ref(raw, lambda _ref, k=key: views.pop(k, None))
        return raw

    def numpy(self, dtype="uint8", shape=None):
        """A writable numpy view (no copy). While any view (or an array made
        from one) is alive, the buffer cannot be freed."""
        np = _np()
        dt = np.dtype(dtype)
        count = self.nbytes // dt.itemsize
        arr = np.frombuffer(self._raw(), dtype=dt, count=count)
        return arr if shape is None else arr.reshape(shape)

    def write(self, data, offset=0):
        """Copies ``bytes``-like ``data`` in at ``offset``."""
        data = memoryview(data).cast("B")
        if offset < 0 or offset + len(data) > self.nbytes:
            raise ValueError(f"{len(data)} bytes at offset {offset} do not fit {self.nbytes}")
        raw = self._raw()
        memoryview(raw).cast("B")[offset : offset + len(data)] = data

    def tobytes(self, nbytes=None, offset=0):
        """A copy of the contents."""
        n = self.nbytes - offset if nbytes is None else nbytes
        if offset < 0 or n < 0 or offset + n > self.nbytes:
            raise ValueError(f"{n} bytes at offset {offset} do not fit {self.nbytes}")
        return bytes(memoryview(self._raw()).cast("B")[offset : offset + n])

    def _release(self):
        self._parent._bind()
        check(acl.rt.free_host(self._ptr), "acl.rt.free_host")


def _count(nbytes, limit, what):
    if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes < 0:
        raise ValueError(f"{what}: nbytes must be a non-negative int, not {nbytes!r}")
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


def _side(ctx, obj, writable, asynchronous):
    """``(address, size, where)`` of one side of a copy."""
    if isinstance(obj, _Buffer):
        if obj._closed:
            obj._check_open()
        if obj._device is not ctx._device:
            raise AclUsageError("a buffer of another device (no peer access in this layer)")
        if obj._streams and not asynchronous:
            raise AclUsageError(
                "a synchronous copy of a buffer that queued stream work still uses; synchronize first"
            )
        return obj._ptr, obj.nbytes, obj.where
    if asynchronous:
        raise AclUsageError(
            "asynchronous copies take runtime memory only (a pinned HostBuffer or a "
            f"DeviceBuffer), not {type(obj).__name__}"
        )
    if isinstance(obj, bytes):
        if writable:
            raise AclUsageError("bytes are immutable: copy into a bytearray, numpy array or buffer")
        return (acl.util.bytes_to_ptr(obj) if obj else 0), len(obj), "pageable"
    if isinstance(obj, bytearray):
        if not obj:
            return 0, 0, "pageable"
        return ctypes.addressof(ctypes.c_char.from_buffer(obj)), len(obj), "pageable"
    np = _np() if type(obj).__module__ == "numpy" else None
    if np is not None and isinstance(obj, np.ndarray):
        if not obj.flags.c_contiguous:
            raise AclUsageError("the numpy array is not C-contiguous")
        if writable and not obj.flags.writeable:
            raise AclUsageError("the destination numpy array is read-only")
        return obj.__array_interface__["data"][0], obj.nbytes, "pageable"
    raise TypeError(f"cannot copy {'to' if writable else 'from'} {type(obj).__name__}")


_WHERE = ("device", "pinned", "pageable")

_HOST_KINDS = {
    ("device", "device"): C.ACL_MEMCPY_DEVICE_TO_DEVICE,
    ("device", "pinned"): C.ACL_MEMCPY_HOST_TO_DEVICE,
    ("device", "pageable"): C.ACL_MEMCPY_HOST_TO_DEVICE,
    ("pinned", "device"): C.ACL_MEMCPY_DEVICE_TO_HOST,
    ("pageable", "device"): C.ACL_MEMCPY_DEVICE_TO_HOST,
}


def kind_of(dst_where, src_where, run_mode):
    """The memcpy kind for a copy into ``dst_where`` from ``src_where``
    (each ``"device"``, ``"pinned"`` or ``"pageable"``) in ``run_mode``.

    In ``ACL_HOST`` mode pinned and pageable memory are host memory. In
    ``ACL_DEVICE`` mode the application runs on the device: runtime memory
    (``malloc`` and ``malloc_host``) is device memory, so copies between it
    and anything are device-to-device; only pageable-to-pageable is
    host-to-host."""
    if run_mode == C.ACL_DEVICE:
        if dst_where == src_where == "pageable":
            return C.ACL_MEMCPY_HOST_TO_HOST
        return C.ACL_MEMCPY_DEVICE_TO_DEVICE
    return _HOST_KINDS.get((dst_where, src_where), C.ACL_MEMCPY_HOST_TO_HOST)


def _plan(ctx, dst, src, nbytes, asynchronous):
    """``(dst, dst_max, src, count, kind)`` of a copy, checked."""
    dptr, dmax, dwhere = _side(ctx, dst, True, asynchronous)
    sptr, smax, swhere = _side(ctx, src, False, asynchronous)
    n = smax if nbytes is None else _count(nbytes, smax, "copy")
    if n > dmax:
        raise ValueError(f"copy: {n} bytes do not fit the {dmax}-byte destination")
    return dptr, dmax, sptr, n, ctx._kinds[(dwhere, swhere)]
