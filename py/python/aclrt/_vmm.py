"""Virtual memory in the resource tree: a reserved address range, physical
allocations, and mappings of the allocations into the range.

* ``ctx.granularity``: the allocation granularity of the context's device
  (bytes); every size and offset below is a multiple of it
  (``ctx.granules(n)`` is ``n`` of them). A size that is not raises
  :class:`ValueError`, naming the multiple to ask for.
* :class:`Reservation` (``ctx.reserve(nbytes)``): a range of device
  addresses, no memory behind it (``acl.rt.reserve_mem_address``).
* :class:`PhysicalMemory` (``ctx.alloc_physical(nbytes)``): device memory
  with no address (``acl.rt.malloc_physical``).
* :class:`Mapping` (``range.map(phys, offset)``): the allocation mapped at
  ``offset`` of the range (``acl.rt.map_mem``), with read-write access for
  the device (``acl.rt.mem_set_access``). It is a :class:`DeviceBuffer`
  (copies, memsets, ``to_numpy``, stream work), not owned: its release
  unmaps (``acl.rt.unmap_mem``), never frees. ``mapping.grow(phys)`` maps
  one more allocation right after its end: the buffer grows in place, its
  address stays. ``mapping.view(offset, nbytes)`` (a :class:`MappedView`)
  and ``mapping.pieces()`` (one view per allocation) are device buffers of
  part of it, which keep it mapped while they live.

The counting is done in Rust (``acl._native.Memory``): a mapping is a child
of its context, of its range and of each allocation it maps (an
allocation's only one: it is mapped once), so releasing the range or
freeing an allocation while a mapping lives raises :class:`AclUsageError`,
and the mapping keeps both alive (they are collected after it). Leaving a
``with`` block releases in order: mappings, then allocations and ranges.
"""

import acl

from ._core import Context, DeviceBuffer, _bind_to, _index, _Node, _size
from .errors import AclUsageError, check

# aclrtPhysicalMemProp of pinned HBM (huge pages) of the context's device,
# as the Rust layer asks (handle type NONE, allocation type PINNED).
_LOCATION_DEVICE = 1
_HBM_HUGE = 4
_GRANULARITY_RECOMMENDED = 1


def _prop(ctx):
    return {
        "handle_type": 0,
        "allocation_type": 0,
        "mem_attr": _HBM_HUGE,
        "location_id": ctx._dev_id,
        "location_type": _LOCATION_DEVICE,
    }


def granularity(ctx):
    """The allocation granularity (bytes) of ``ctx``'s device
    (``acl.rt.mem_get_allocation_granularity``, recommended)."""
    ctx._check_open()
    with ctx._h.use():
        _bind_to(ctx._h)
        gran, ret = acl.rt.mem_get_allocation_granularity(_prop(ctx), _GRANULARITY_RECOMMENDED)
    check(ret, "acl.rt.mem_get_allocation_granularity")
    return gran


def _granular(ctx, nbytes, what):
    """``nbytes`` (a positive integer) checked to be a multiple of the
    granularity; ``ValueError`` names the sizes to ask for instead."""
    n = _size(nbytes, what)
    gran = granularity(ctx)
    if n % gran:
        down, up = n // gran * gran, (n // gran + 1) * gran
        raise ValueError(
            f"{what} of {n} bytes is not a multiple of the allocation granularity "
            f"({gran} bytes): ask for {up} (ctx.granules({up // gran}))"
            + (f" or {down}" if down else "")
        )
    return n


def _same_context(what, ctx, *nodes):
    for node in nodes:
        node._check_open()
        if node._parent is not ctx:
            raise AclUsageError(f"{what}: the {node._what} belongs to another context")


class Reservation(_Node):
    """A reserved range of device addresses (``ctx.reserve(nbytes)``,
    ``acl.rt.reserve_mem_address``); released (``release_mem_address``)
    only once no mapping lies in it."""

    _order = 3  # after the mappings (buffers: 2)
    _what = "reserved range"

    def __init__(self, ctx, nbytes):
        if not isinstance(ctx, Context):
            raise TypeError(f"a Reservation belongs to a Context, not {type(ctx).__name__}")
        n = _granular(ctx, nbytes, "a reserved range")
        super().__init__(ctx)
        try:  # the context is alive: it counts this range
            _bind_to(ctx._h)
            va, ret = acl.rt.reserve_mem_address(n, 0, 0, 0)
            check(ret, "acl.rt.reserve_mem_address")
        except BaseException:
            self._closed = True
            self._h._abandon()
            raise
        self._h._open(va)
        #: The size in bytes.
        self.nbytes = n

    @property
    def context(self):
        return self._parent

    @property
    def ptr(self):
        """The first address of the range (for raw ``acl`` calls)."""
        self._check_open()
        return self._h.value

    def map(self, phys, offset=0):
        """Maps ``phys`` (a :class:`PhysicalMemory` of the same context, not
        mapped yet) at byte ``offset`` (a multiple of the granularity):
        a :class:`Mapping`."""
        return Mapping(self, phys, offset)

    def _release(self):
        _bind_to(self._parent._h)  # alive: it counts this range
        check(acl.rt.release_mem_address(self._h.value), "acl.rt.release_mem_address")

    def __repr__(self):
        state = "released" if self._closed else hex(self._h.value)
        return f"<Reservation {self.nbytes} B at {state}>"


class PhysicalMemory(_Node):
    """Device memory without an address (``ctx.alloc_physical(nbytes)``,
    ``acl.rt.malloc_physical``); mapped once at a time, freed
    (``free_physical``) only while not mapped."""

    _order = 3
    _what = "physical allocation"

    def __init__(self, ctx, nbytes):
        if not isinstance(ctx, Context):
            raise TypeError(f"a PhysicalMemory belongs to a Context, not {type(ctx).__name__}")
        n = _granular(ctx, nbytes, "a physical allocation")
        super().__init__(ctx)
        try:
            _bind_to(ctx._h)
            handle, ret = acl.rt.malloc_physical(n, _prop(ctx), 0)
            check(ret, "acl.rt.malloc_physical")
        except BaseException:
            self._closed = True
            self._h._abandon()
            raise
        self._h._open(handle)
        #: The size in bytes.
        self.nbytes = n

    @property
    def context(self):
        return self._parent

    @property
    def handle(self):
        """The raw ``aclrtDrvMemHandle`` (for raw ``acl`` calls: unchecked)."""
        return self._h.value

    @property
    def mapped(self):
        """True while a mapping of it lives."""
        return bool(self._h._children)

    def _release(self):
        _bind_to(self._parent._h)
        check(acl.rt.free_physical(self._h.value), "acl.rt.free_physical")

    def __repr__(self):
        state = "freed" if self._closed else ("mapped" if self.mapped else "unmapped")
        return f"<PhysicalMemory {self.nbytes} B {state}>"


class Mapping(DeviceBuffer):
    """Physical allocations mapped into a reserved range: device memory
    usable where a :class:`DeviceBuffer` is. Not owned: releasing it
    (``close()``, the end of its ``with`` block or of its context's, range's
    or allocation's) unmaps each piece (``acl.rt.unmap_mem``)."""

    _what = "mapping"

    def __init__(self, reservation, phys, offset=0):
        if not isinstance(reservation, Reservation):
            raise TypeError(f"a Mapping lies in a Reservation, not {type(reservation).__name__}")
        if not isinstance(phys, PhysicalMemory):
            raise TypeError(f"a Mapping maps a PhysicalMemory, not {type(phys).__name__}")
        ctx = reservation._parent
        _same_context("map", ctx, reservation, phys)
        if isinstance(offset, bool):
            raise TypeError(f"an offset is an integer, not {offset!r}")
        offset = int(offset)
        gran = granularity(ctx)
        if offset < 0 or offset % gran:
            raise ValueError(
                f"the offset {offset} is not a non-negative multiple of the granularity ({gran} bytes)"
            )
        if offset + phys.nbytes > reservation.nbytes:
            raise ValueError(
                f"{phys.nbytes} bytes at offset {offset} do not fit the {reservation.nbytes}-byte range"
            )
        _Node.__init__(self, ctx)
        self._device = ctx._device
        self._range = reservation
        self._allocations = [phys]  # references only: Rust counts them
        self.offset = offset
        try:  # refused unless the context, range and allocation are open
            ret = self._map(reservation._h, offset, phys._h, phys.nbytes, ctx._dev_id, ctx._h)
        except BaseException:
            self._closed = True
            raise
        if ret != 0:
            self._closed = True
            check(ret, "acl.rt.map_mem")

    @property
    def reservation(self):
        return self._range

    @property
    def allocations(self):
        """The physical allocations it maps, in address order."""
        return tuple(self._allocations)

    def grow(self, phys):
        """Maps ``phys`` right after the mapping's end (inside its range):
        the buffer grows in place, its address and contents stay."""
        if not isinstance(phys, PhysicalMemory):
            raise TypeError(f"a Mapping grows by a PhysicalMemory, not {type(phys).__name__}")
        self._check_open()
        ctx = self._parent
        _same_context("grow", ctx, phys)
        end = self.offset + self.nbytes
        if end + phys.nbytes > self._range.nbytes:
            raise ValueError(
                f"{phys.nbytes} more bytes after {end} do not fit the {self._range.nbytes}-byte range"
            )
        check(self._grow(phys._h, phys.nbytes), "acl.rt.map_mem")
        self._allocations.append(phys)
        return self

    def view(self, offset=0, nbytes=None):
        """A :class:`MappedView` of ``nbytes`` (default: to the end) at byte
        ``offset``: device memory for copies, memsets and stream work that
        keeps this mapping mapped while it lives."""
        self._check_open()
        offset = _index(offset, "offset")
        n = self.nbytes - offset if nbytes is None else _index(nbytes, "nbytes")
        if offset < 0 or n <= 0 or offset + n > self.nbytes:
            raise ValueError(f"{n} bytes at offset {offset} do not fit the {self.nbytes}-byte mapping")
        return MappedView(self, offset, n)

    def pieces(self):
        """One :meth:`view` per physical allocation, in address order (the
        simulator, like an allocation table, takes each piece for an
        allocation of its own: a single copy does not cross two)."""
        views, at = [], 0
        for phys in self._allocations:
            views.append(self.view(at, phys.nbytes))
            at += phys.nbytes
        return views

    def ipc_export(self, pids=(), any_process=False):
        raise AclUsageError(
            "a mapping cannot be exported as IPC memory (it is not an allocation of this process)"
        )

    def _close(self, defer):
        if self._closed:
            return
        ret = self._free(defer, self._last_view_gone if defer else None)
        if ret is None:  # a copy holds it right now (another thread)
            if not defer:
                raise AclUsageError(
                    "cannot unmap: a view of it (mapping.view, mapping.pieces) is alive, or a "
                    "copy on another thread uses it; release the views first"
                )
            self._closed = True
            return
        self._released()
        check(ret, "acl.rt.unmap_mem")

    def _last_view_gone(self):
        ret = self._free(False)
        self._released()
        check(ret, "acl.rt.unmap_mem")

    def _released(self):
        """After the unmap: the context, and a range or allocation that
        waited for this mapping, released by this caller (decided in Rust)."""
        claimed = self._map_claimed()
        super()._released()
        for node in (self._range, *self._allocations):
            if any(node._h is h for h in claimed):
                node._release_claimed()

    def __repr__(self):
        state = "unmapped" if self._closed else hex(self._ptr)
        return f"<Mapping {self.nbytes} B at {state}>"


class MappedView(DeviceBuffer):
    """Part of a :class:`Mapping` (``mapping.view(offset, nbytes)``): device
    memory usable where a :class:`DeviceBuffer` is. It holds the mapping
    (counted in Rust): while it lives, ``mapping.close()`` raises and a
    with-block's unmap waits for it. Its own release calls nothing."""

    _what = "mapped view"

    def __init__(self, mapping, offset, nbytes):
        if not isinstance(mapping, Mapping):
            raise TypeError(f"a MappedView views a Mapping, not {type(mapping).__name__}")
        ctx = mapping._parent
        _Node.__init__(self, ctx)
        self._device = ctx._device
        self.mapping = mapping
        self.offset = offset
        try:
            self._view(mapping, offset, nbytes, ctx._h)
        except BaseException:
            self._closed = True
            raise

    def ipc_export(self, pids=(), any_process=False):
        raise AclUsageError("a view of a mapping cannot be exported as IPC memory")

    def _close(self, defer):
        if self._closed:
            return
        ret = self._free(defer, self._last_view_gone if defer else None)
        if ret is None:
            if not defer:
                raise AclUsageError("cannot release the view: a copy on another thread uses it")
            self._closed = True
            return
        self._released()

    def _last_view_gone(self):
        self._free(False)
        self._released()

    def __repr__(self):
        state = "released" if self._closed else hex(self._ptr)
        return f"<MappedView {self.nbytes} B at {state}>"


# -- the entry points on the context ------------------------------------------


def _context_granularity(self):
    """The allocation granularity of the device (bytes)."""
    return granularity(self)


def _context_granules(self, n):
    """``n`` granules in bytes (``n * ctx.granularity``)."""
    if isinstance(n, bool) or not isinstance(n, int) or n <= 0:
        raise ValueError(f"a count of granules is a positive integer, not {n!r}")
    return n * granularity(self)


def _context_reserve(self, nbytes):
    """A :class:`aclrt.Reservation` of ``nbytes`` (a multiple of the granularity)."""
    self._check_open()
    return Reservation(self, nbytes)


def _context_alloc_physical(self, nbytes):
    """A :class:`aclrt.PhysicalMemory` of ``nbytes`` (a multiple of the granularity)."""
    self._check_open()
    return PhysicalMemory(self, nbytes)


Context.granularity = property(_context_granularity)
Context.granules = _context_granules
Context.reserve = _context_reserve
Context.alloc_physical = _context_alloc_physical
