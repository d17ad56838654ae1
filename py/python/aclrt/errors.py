"""Exceptions of the Pythonic layer."""

import threading

import acl
from acl._native import AclUsageError  # raised by checks in Rust and in Python alike

__all__ = ["AclError", "AclMemoryError", "AclUsageError", "CallbackError", "check"]

#: ACL_ERROR_RT_MEMORY_ALLOCATION / ACL_ERROR_BAD_ALLOC: an allocation the
#: runtime could not satisfy.
_OUT_OF_MEMORY = (207001, 200000)


class AclError(RuntimeError):
    """A runtime call returned a non-zero ``ret``.

    ``code`` is the aclError, ``function`` the ``acl`` function that failed
    (``"acl.rt.malloc"``) and ``message`` the runtime's recent error message
    (``acl.get_recent_err_msg()``, or ``None``).
    """

    def __init__(self, code, function, message=None):
        self.code = code
        self.function = function
        self.message = message
        text = f"{function} failed with {code}"
        if message:
            text += f": {message}"
        super().__init__(text)


class AclMemoryError(AclError, MemoryError):
    """An allocation the runtime could not satisfy (``207001``): both an
    :class:`AclError` and a ``MemoryError``."""


class CallbackError(RuntimeError):
    """A function given to ``Stream.add_callback`` raised; reported by the
    stream's next ``synchronize()`` (the original is ``__cause__``)."""


_seen = threading.local()


def _new_message():
    """The part of ``acl.get_recent_err_msg()`` this thread has not read yet:
    the runtime keeps its text when it is read and puts a new failure's
    message in front of it (followed by a newline)."""
    text = acl.get_recent_err_msg()
    seen = getattr(_seen, "text", None)
    _seen.text = text
    if text is None or text == seen:
        return None
    if seen and text.endswith("\n" + seen):
        return text[: -len(seen) - 1]
    return text


def check(ret, function):
    """Raises :class:`AclError` when ``ret`` is not 0 (:class:`AclMemoryError`
    for an allocation failure)."""
    if ret != 0:
        cls = AclMemoryError if ret in _OUT_OF_MEMORY else AclError
        raise cls(ret, function, _new_message())
