"""A stream's callbacks served by a thread the program owns.

``with stream.serve() as server:`` subscribes the *calling* thread to the
stream (``acl.rt.subscribe_report``) for the block's duration; the stream's
callbacks (``stream.add_callback``) then run on that thread, inside
``server.process(timeout)`` (``acl.rt.process_report``, the GIL released
while it waits; each callback takes it). Leaving the block first runs the
stream's callbacks until the work queued on it so far is done (so none is
left to another thread; ``acl.rt.stream_query``), then unsubscribes
(``acl.rt.unsubscribe_report``).

The subscription lives in Rust (``acl._native._Server``): it holds a use
of the stream, so the stream cannot be released while served (``close()``
raises), it unsubscribes when collected if the block never ended (an
abandoned generator), and only the subscribed thread may process. A wait
of the serving thread for the stream (``stream.synchronize()``,
``ctx.synchronize()``, ``event.synchronize()`` of its unfinished work)
would wait for a callback only that thread runs: it raises
:class:`AclUsageError` at once. An exception a callback raises is
re-raised (as :class:`CallbackError`) by the ``process()`` that ran it, or
by the end of the block.

In a forked child the server refuses (as every runtime call there does);
its block ends without calling the runtime (the subscription was the
parent's).
"""

import math

from acl import _native

from ._core import Stream
from .errors import AclUsageError, CallbackError, check

_SUBSCRIBED_ALREADY = 107011  # ACL_ERROR_RT_STREAM_SUBSCRIBE
_REPORT_TIMEOUT = 507012  # ACL_ERROR_RT_REPORT_TIMEOUT


class Server:
    """The subscription of the thread that enters it to one stream
    (``stream.serve()``); see the module docs."""

    def __init__(self, stream):
        if not isinstance(stream, Stream):
            raise TypeError(f"a Server serves a Stream, not {type(stream).__name__}")
        stream._check_open()
        self._stream = stream
        self._s = _native._Server(stream._h, stream._parent._h)

    @property
    def stream(self):
        return self._stream

    @property
    def serving(self):
        """True inside the with-block."""
        return self._s.serving

    @property
    def thread(self):
        """``threading.get_ident()`` of the serving thread (0 outside the block)."""
        return self._s.thread

    def __enter__(self):
        ret = self._s._enter()
        if ret == _SUBSCRIBED_ALREADY:
            raise AclUsageError(
                "the stream is served by another thread already (the context's callback "
                "thread, after an add_callback, or another server): one thread serves a stream"
            )
        check(ret, "acl.rt.subscribe_report")
        return self

    def process(self, timeout=None):
        """Runs the callbacks that are due, waiting up to ``timeout`` seconds
        (``None``: until one comes) for one: ``True`` when a callback ran,
        ``False`` on a timeout. A callback's exception is raised here."""
        if timeout is None:
            ms = -1
        else:
            if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
                raise TypeError(f"a timeout is a number of seconds, not {timeout!r}")
            if not timeout > 0:
                raise ValueError(f"a timeout is positive (or None), not {timeout!r}")
            ms = min(2**31 - 1, max(1, math.ceil(timeout * 1000)))
        ret = self._s.process(ms)
        self._raise_errors()
        if ret == _REPORT_TIMEOUT:
            return False
        check(ret, "acl.rt.process_report")
        return True

    def _raise_errors(self):
        errors = self._stream._callback_errors
        if errors:
            err = errors.pop(0)
            errors.clear()
            raise CallbackError(f"a stream callback raised {type(err).__name__}: {err}") from err

    def __exit__(self, exc_type, exc, tb):
        ret = self._s._exit()  # runs the callbacks still queued, here
        if exc_type is None:
            check(ret, "acl.rt.unsubscribe_report")
            self._raise_errors()
        return False

    def _refuse_copy(self, *_args):
        raise TypeError("cannot pickle or copy a Server: it is one thread's subscription")

    __reduce__ = __reduce_ex__ = __copy__ = __deepcopy__ = __getstate__ = _refuse_copy

    def __repr__(self):
        state = f"serving on thread {self.thread}" if self.serving else "not serving"
        return f"<Server of {self._stream!r} {state}>"


def _stream_serve(self):
    """``with stream.serve() as server:``: this thread runs the stream's
    callbacks in ``server.process()`` (:class:`aclrt.Server`)."""
    return Server(self)


Stream.serve = _stream_serve
