"""aclrt: a safe, Pythonic layer over pyACL's ``acl`` module.

Python sugar over aclrt's ``acl`` module (on the simulator or a real
``libascendcl``); memory is owned and counted in Rust
(``acl._native.Memory``)::

    import numpy as np
    import aclrt

    with aclrt.Runtime() as rt, rt.device(0) as dev, dev.context() as ctx:
        with ctx.stream() as s:
            host = ctx.pinned(4096)
            host.numpy(np.float32)[:] = 1.5
            dev_buf = ctx.alloc(4096)
            s.copy(dev_buf, host)          # the direction comes from the kinds
            start, end = ctx.event(), ctx.event()
            s.record(start); s.copy(host, dev_buf); s.record(end)
            s.add_callback(print, "copied")
            s.synchronize()
            print(end - start, "ms")

Runtime failures raise :class:`AclError` (``code``, ``function``,
``message``); misuse the layer catches raises :class:`AclUsageError`.
"""

from acl._native import __version__ as _native_version

from . import constants
from ._core import (
    Context,
    Device,
    DeviceBuffer,
    Event,
    HostBuffer,
    Runtime,
    Stream,
    kind_of,
)
from ._resources import (
    DeviceInfo,
    IpcBuffer,
    IpcEvent,
    IpcExport,
    Notify,
    OpenedIpcEvent,
    Utilization,
)
from ._serve import Server
from ._vmm import MappedView, Mapping, PhysicalMemory, Reservation
from .errors import AclError, AclMemoryError, AclUsageError, CallbackError, check

#: The package version (that of the ``acl`` extension it ships with).
__version__ = _native_version

__all__ = [
    "AclError",
    "AclMemoryError",
    "AclUsageError",
    "CallbackError",
    "Context",
    "Device",
    "DeviceBuffer",
    "DeviceInfo",
    "Event",
    "HostBuffer",
    "IpcBuffer",
    "IpcEvent",
    "IpcExport",
    "MappedView",
    "Mapping",
    "Notify",
    "OpenedIpcEvent",
    "PhysicalMemory",
    "Reservation",
    "Runtime",
    "Server",
    "Stream",
    "Utilization",
    "check",
    "constants",
    "kind_of",
]
