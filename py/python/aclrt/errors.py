"""Exceptions of the Pythonic layer."""

import acl


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


class AclUsageError(RuntimeError):
    """Misuse the layer caught before calling the runtime: a resource used
    after it (or its context) was released, a parent released before its
    children, a copy that cannot go in any direction, a buffer freed while a
    numpy view or pending stream work still uses it."""


class CallbackError(RuntimeError):
    """A function given to ``Stream.add_callback`` raised; reported by the
    stream's next ``synchronize()`` (the original is ``__cause__``)."""


def check(ret, function):
    """Raises :class:`AclError` when ``ret`` is not 0."""
    if ret != 0:
        raise AclError(ret, function, acl.get_recent_err_msg())
