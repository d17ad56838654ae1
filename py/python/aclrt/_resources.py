"""The runtime's newer resources in the resource tree: device information,
notifies between streams, and device memory shared with other processes.

* :class:`DeviceInfo` (``device.info``): the device's figures, read once.
* :class:`Notify` (``ctx.notify()``): a device-side flag; ``n.record(s1)``
  sets it when the work queued on ``s1`` before it is done, ``n.wait(s2)``
  holds ``s2``'s later work until then and resets it. ``n.export(pids)``
  gives a key; ``ctx.import_notify(key)`` opens it as a notify of its own.
* :class:`IpcEvent` (``ctx.ipc_event()``) and :class:`OpenedIpcEvent`
  (``ctx.ipc_open_event(ev.ipc_handle)``): an event another process waits
  for, and that process's handle on it.
* :class:`IpcExport` (``buf.ipc_export(pids)``): a device buffer's export
  key for the processes listed; closed before the buffer is freed.
* :class:`IpcBuffer` (``ctx.ipc_import(key)``): another process's buffer,
  imported by key. It is not owned: its release closes the import
  (``acl.rt.ipc_mem_close``), never frees; its size is the runtime's.

Each is a node of the tree (released once, after its uses, in the
with-block order), so no Python code can destroy a notify under a queued
task of a live stream, or free an exported buffer.
"""

import dataclasses

import acl
from acl import _native

from ._core import Context, Device, DeviceBuffer, Event, Stream, _bind_to, _Buffer, _Node
from .errors import AclUsageError, check

# ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION.
_EXPORT_ANY_PID = 0x1
# ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION.
_NOTIFY_EXPORT_ANY_PID = 0x2
# ACL_EVENT_IPC (acl.rt.create_event_ex_with_flag).
_EVENT_IPC = 0x40
_KEY_LEN = 128

# aclrtDevAttr ids (acl.rt.get_device_info).
_ATTRS = {
    "aicpu_cores": 1,
    "aicore_cores": 101,
    "cube_cores": 102,
    "vector_cores": 201,
    "total_memory": 301,
    "l2_cache_size": 302,
    "npu_arch": 601,
}


@dataclasses.dataclass(frozen=True)
class Utilization:
    """Busy percentages (``acl.rt.get_device_utilization_rate``); ``None``
    where the runtime cannot tell (it reports -1)."""

    cube: "int | None"
    vector: "int | None"
    aicpu: "int | None"
    memory: "int | None"


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    """What ``device.info`` reports (``acl.rt.get_device_info`` and its
    siblings); a figure the chip does not have is ``None``."""

    id: int
    soc_name: "str | None"
    aicpu_cores: "int | None"
    aicore_cores: "int | None"
    cube_cores: "int | None"
    vector_cores: "int | None"
    total_memory: "int | None"
    l2_cache_size: "int | None"
    npu_arch: "int | None"
    #: ``True`` while the device is healthy (``acl.rt.query_device_status``).
    healthy: bool
    #: ``"saturation"`` or ``"inf_nan"`` (``acl.rt.get_device_sat_mode``).
    overflow_mode: str
    utilization: Utilization


def device_info(device):
    """The :class:`DeviceInfo` of an open :class:`aclrt.Device`."""
    device._check_open()
    ctx = device.default_context
    with ctx._h.use():
        _bind_to(ctx._h)
        figures = {}
        for name, attr in _ATTRS.items():
            value, ret = acl.rt.get_device_info(device.id, attr)
            figures[name] = value if ret == 0 else None
        status, ret = acl.rt.query_device_status(device.id)
        check(ret, "acl.rt.query_device_status")
        mode, ret = acl.rt.get_device_sat_mode()
        check(ret, "acl.rt.get_device_sat_mode")
        rates, ret = acl.rt.get_device_utilization_rate(device.id)
        check(ret, "acl.rt.get_device_utilization_rate")
    def pct(v):
        return None if v < 0 else v

    return DeviceInfo(
        id=device.id,
        soc_name=acl.get_soc_name(),
        healthy=status == 0,
        overflow_mode="saturation" if mode == 0 else "inf_nan",
        utilization=Utilization(
            cube=pct(rates["cube_utilization"]),
            vector=pct(rates["vector_utilization"]),
            aicpu=pct(rates["aicpu_utilization"]),
            memory=pct(rates["memory_utilization"]),
        ),
        **figures,
    )


def _same_context(what, node, stream):
    if not isinstance(stream, Stream):
        raise TypeError(f"{what} takes a Stream, not {type(stream).__name__}")
    node._check_open()
    stream._check_open()
    if stream._parent is not node._parent:
        raise AclUsageError(f"{what}: the stream belongs to another context")


class Notify(_Node):
    """A notify of a context (``acl.rt.create_notify``): ``record(s1)`` then
    ``wait(s2)`` orders ``s2``'s later work after ``s1``'s earlier work.
    Released after the streams it was used on are synchronized."""

    _order = 1
    _what = "notify"

    def __init__(self, ctx, _key=None):
        super().__init__(ctx)
        self._streams = []  # streams with queued records or waits of it
        #: True for a notify imported from an export key (``ctx.import_notify``).
        self.imported = _key is not None
        try:  # the context is alive: it counts this notify
            _bind_to(ctx._h)
            if _key is None:
                handle, ret = acl.rt.create_notify(0)
                check(ret, "acl.rt.create_notify")
            else:
                handle, ret = acl.rt.notify_import_by_key(_key, 0)
                check(ret, "acl.rt.notify_import_by_key")
        except BaseException:
            self._closed = True
            self._h._abandon()
            raise
        self._h._open(handle)

    def export(self, pids=(), any_process=False):
        """The key (a ``str``) with which the processes ``pids`` (or any
        process) import this notify (``ctx.import_notify(key)``):
        ``acl.rt.notify_get_export_key`` and ``notify_set_import_pid``. The
        key names this notify: it is valid while the notify lives."""
        pids = [_pid(p) for p in pids]
        if not pids and not any_process:
            raise AclUsageError("a notify export needs the pids allowed to import it (or any_process=True)")
        self._check_open()
        flags = _NOTIFY_EXPORT_ANY_PID if any_process else 0
        with self._h.use() as n:
            _bind_to(self._parent._h)
            key, ret = acl.rt.notify_get_export_key(n, _KEY_LEN, flags)
            check(ret, "acl.rt.notify_get_export_key")
            if pids:
                check(acl.rt.notify_set_import_pid(n, pids), "acl.rt.notify_set_import_pid")
        return key

    @property
    def handle(self):
        """The raw ``aclrtNotify`` (for raw ``acl`` calls: unchecked)."""
        return self._h.value

    @property
    def id(self):
        """The runtime's id of the notify (``acl.rt.get_notify_id``)."""
        self._check_open()
        with self._h.use() as n:
            _bind_to(self._parent._h)
            value, ret = acl.rt.get_notify_id(n)
        check(ret, "acl.rt.get_notify_id")
        return value

    def _used_on(self, stream):
        if stream not in self._streams:
            self._streams.append(stream)

    def record(self, stream):
        """Sets the notify once the work queued on ``stream`` so far is done
        (``acl.rt.record_notify``)."""
        _same_context("notify.record", self, stream)
        with stream._h.use() as s, self._h.use() as n:
            _bind_to(self._parent._h)
            ret = acl.rt.record_notify(n, s)
        check(ret, "acl.rt.record_notify")
        self._used_on(stream)
        return self

    def wait(self, stream, timeout=0):
        """Work queued on ``stream`` after this waits until the notify is set,
        then resets it (``acl.rt.wait_and_reset_notify``). ``timeout`` in
        seconds, 0 for no limit; a wait past it is a failure of ``stream``
        (raised by its next synchronisation)."""
        _same_context("notify.wait", self, stream)
        timeout = int(timeout)
        if timeout < 0:
            raise ValueError("the timeout is 0 (no limit) or a number of seconds")
        with stream._h.use() as s, self._h.use() as n:
            _bind_to(self._parent._h)
            ret = acl.rt.wait_and_reset_notify(n, s, timeout)
        check(ret, "acl.rt.wait_and_reset_notify")
        self._used_on(stream)
        return self

    def _release(self):
        ctx = self._parent
        _bind_to(ctx._h)  # alive: it counts this notify
        # No queued task may name a destroyed notify: finish the work of
        # every live stream it was used on (a destroyed stream finished).
        for s in self._streams:
            if not s._closed:
                try:
                    _native._sync_stream(ctx._h, s._h)
                except AclUsageError:
                    pass  # the stream is being released: that synchronizes it
        self._streams.clear()
        check(acl.rt.destroy_notify(self._h.value), "acl.rt.destroy_notify")


class IpcExport(_Node):
    """A device buffer exported to other processes
    (``acl.rt.ipc_mem_get_export_key`` and ``ipc_mem_set_import_pid``):
    ``key`` is what an importer passes to ``ctx.ipc_import``. Closed
    (``acl.rt.ipc_mem_close``) before its buffer can be freed."""

    _order = 1  # before the buffers (order 2)
    _what = "IPC export"
    _KEY_LEN = 128

    def __init__(self, buf, pids=(), any_process=False):
        if not isinstance(buf, DeviceBuffer) or isinstance(buf, IpcBuffer) or buf._mapped:
            raise TypeError(
                f"only a DeviceBuffer this process allocated can be exported, not {type(buf).__name__}"
            )
        buf._check_open()
        pids = [_pid(p) for p in pids]
        if not pids and not any_process:
            raise AclUsageError("an IPC export needs the pids allowed to import it (or any_process=True)")
        ctx = buf._parent
        super().__init__(ctx)
        flags = _EXPORT_ANY_PID if any_process else 0
        key = None
        # Listed on the buffer before its address is read: a close() of the
        # buffer from another thread from now on sees a live export and is
        # refused, so the key never names memory freed (and reused) meanwhile.
        if type(buf._ipc_exports) is tuple:
            buf._ipc_exports = []
        buf._ipc_exports.append(self)
        try:
            buf._check_open()
            _bind_to(ctx._h)
            key, ret = acl.rt.ipc_mem_get_export_key(buf.ptr, buf.nbytes, self._KEY_LEN, flags)
            check(ret, "acl.rt.ipc_mem_get_export_key")
            if pids:
                check(acl.rt.ipc_mem_set_import_pid(key, pids), "acl.rt.ipc_mem_set_import_pid")
        except BaseException:
            if key:
                acl.rt.ipc_mem_close(key)
            buf._ipc_exports.remove(self)
            self._closed = True
            self._h._abandon()
            raise
        self._h._open(buf.ptr)
        #: The key (a ``str``) to hand to the importing process.
        self.key = key
        #: The exported size in bytes.
        self.nbytes = buf.nbytes
        self.pids = tuple(pids)
        self._buf = buf

    @property
    def buffer(self):
        return self._buf

    def _release(self):
        _bind_to(self._parent._h)
        try:
            check(acl.rt.ipc_mem_close(self.key), "acl.rt.ipc_mem_close")
        finally:
            try:
                self._buf._ipc_exports.remove(self)
            except ValueError:
                pass

    def __repr__(self):
        state = "closed" if self._closed else self.key
        return f"<IpcExport {self.nbytes} B {state}>"


def _pid(p):
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(f"a pid is an int, not {type(p).__name__}")
    if not 0 < p < 2**31:
        raise ValueError(f"{p} is not a process id")
    return p


class IpcBuffer(DeviceBuffer):
    """Device memory another process exported (``acl.rt.ipc_mem_import_by_key``),
    usable where a :class:`DeviceBuffer` is (copies, memsets, ``to_numpy``)
    but not owned: releasing it (``close()``, the end of its ``with`` block
    or of its context's) closes the import (``acl.rt.ipc_mem_close``); it
    cannot be exported again."""

    _what = "imported buffer"

    def __init__(self, ctx, key):
        if not isinstance(ctx, Context):
            raise TypeError(f"an IpcBuffer belongs to a Context, not {type(ctx).__name__}")
        if not isinstance(key, str):
            raise TypeError(f"an IPC key is a str, not {type(key).__name__}")
        _Node.__init__(self, ctx)
        self._device = ctx._device
        try:  # refused once the context is released (atomically, in Rust)
            ret = self._import(key, 0, ctx._dev_id, ctx._h)
        except BaseException:
            self._closed = True
            raise
        if ret != 0:
            self._closed = True
            check(ret, "acl.rt.ipc_mem_import_by_key")
        self.key = key

    def _close(self, defer):
        if self._closed:
            return
        ret = self._free(defer, None)
        # Device memory has no views, so nothing defers the close.
        self._released()
        check(ret, "acl.rt.ipc_mem_close")

    def _last_view_gone(self):  # pragma: no cover - device memory has no views
        ret = self._free(False)
        self._released()
        check(ret, "acl.rt.ipc_mem_close")


class IpcEvent(Event):
    """An event other processes can wait for (``ctx.ipc_event()``,
    ``acl.rt.create_event_ex_with_flag(ACL_EVENT_IPC)``): record it on a
    stream of this process; :attr:`ipc_handle` (``bytes``) is what
    another process passes to ``ctx.ipc_open_event``. No timing."""

    _what = "IPC event"

    def __init__(self, ctx):
        if not isinstance(ctx, Context):
            raise TypeError(f"an IpcEvent belongs to a Context, not {type(ctx).__name__}")
        self.timing = False
        self._recorded = False
        self._stream = None
        _Node.__init__(self, ctx)
        try:  # the context is alive: it counts this event
            _bind_to(ctx._h)
            handle, ret = acl.rt.create_event_ex_with_flag(_EVENT_IPC)
            check(ret, "acl.rt.create_event_ex_with_flag")
        except BaseException:
            self._closed = True
            self._h._abandon()
            raise
        self._h._open(handle)

    @property
    def ipc_handle(self):
        """The event's IPC handle (``acl.rt.ipc_get_event_handle``): 64
        ``bytes`` naming it while it lives."""
        self._check_open()
        with self._h.use() as e:
            _bind_to(self._parent._h)
            handle, ret = acl.rt.ipc_get_event_handle(e)
        check(ret, "acl.rt.ipc_get_event_handle")
        return handle


class OpenedIpcEvent(Event):
    """Another process's :class:`IpcEvent`, opened from its handle
    (``ctx.ipc_open_event(handle)``, ``acl.rt.ipc_open_event_handle``):
    ``stream.wait(ev)`` and ``ev.synchronize()`` wait for its records
    there. Released with ``acl.rt.destroy_event`` (the exporter's event
    lives on)."""

    _what = "opened IPC event"

    def __init__(self, ctx, handle):
        if not isinstance(ctx, Context):
            raise TypeError(f"an OpenedIpcEvent belongs to a Context, not {type(ctx).__name__}")
        if not isinstance(handle, (bytes, bytearray)):
            raise TypeError(f"an IPC event handle is bytes, not {type(handle).__name__}")
        self.timing = False
        self._recorded = True  # by the exporting process
        self._stream = None
        _Node.__init__(self, ctx)
        try:
            _bind_to(ctx._h)
            event, ret = acl.rt.ipc_open_event_handle(bytes(handle))
            check(ret, "acl.rt.ipc_open_event_handle")
        except BaseException:
            self._closed = True
            self._h._abandon()
            raise
        self._h._open(event)


# -- the entry points on the core's classes -----------------------------------
# Attached here, so that _core imports nothing of this module (the house
# imports downward only); `aclrt` imports this module with the package.


def _device_info_property(self):
    """The device's figures (:class:`aclrt.DeviceInfo`), read now."""
    return device_info(self)


def _context_notify(self):
    """A new :class:`aclrt.Notify` (``acl.rt.create_notify``)."""
    self._check_open()
    return Notify(self)


def _context_ipc_import(self, key):
    """Another process's exported device buffer (:class:`aclrt.IpcBuffer`)."""
    self._check_open()
    return IpcBuffer(self, key)


def _buffer_ipc_export(self, pids=(), any_process=False):
    """Exports this buffer to the processes ``pids`` (or to any process):
    an :class:`aclrt.IpcExport` whose ``key`` they pass to
    ``ctx.ipc_import``; closed before the buffer is freed."""
    return IpcExport(self, pids, any_process)


def _context_import_notify(self, key):
    """The notify another process exported under ``key`` (:class:`aclrt.Notify`,
    ``imported`` true): recorded and waited on this context's streams."""
    if not isinstance(key, str):
        raise TypeError(f"a notify key is a str, not {type(key).__name__}")
    self._check_open()
    return Notify(self, key)


def _context_ipc_event(self):
    """A new :class:`aclrt.IpcEvent`."""
    self._check_open()
    return IpcEvent(self)


def _context_ipc_open_event(self, handle):
    """Another process's IPC event (:class:`aclrt.OpenedIpcEvent`)."""
    self._check_open()
    return OpenedIpcEvent(self, handle)


Device.info = property(_device_info_property)
Context.import_notify = _context_import_notify
Context.ipc_event = _context_ipc_event
Context.ipc_open_event = _context_ipc_open_event
Context.notify = _context_notify
Context.ipc_import = _context_ipc_import
DeviceBuffer.ipc_export = _buffer_ipc_export
