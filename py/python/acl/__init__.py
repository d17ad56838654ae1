"""pyACL's ``acl`` module, on aclrt.

Runs unchanged pyACL programs: on aclrt's built-in software NPU (the
simulator, default: no NPU, no CANN) or, when built with the ``system``
feature, on a real ``libascendcl``. The conventions are pyACL's: outputs first
and ``ret`` last (``ptr, ret = acl.rt.malloc(size, policy)``), plain ints for
addresses and handles, 0 for NULL and the default stream, runtime failures
only as a non-zero ``ret``, no constants (define them yourself, or use
``aclrt.constants``).

Submodules: ``acl.rt`` (runtime) and ``acl.util`` (memory and thread
helpers); ``import acl.rt`` works too. The extension itself is
``acl._native``.
"""

from acl._native import (  # noqa: F401  (the public surface)
    __version__,
    app_log,
    finalize,
    finalize_reference,
    get_recent_err_msg,
    get_soc_name,
    get_version,
    init,
    rt,
    util,
)

__all__ = [
    "__version__",
    "app_log",
    "init",
    "finalize",
    "finalize_reference",
    "get_recent_err_msg",
    "get_soc_name",
    "get_version",
    "rt",
    "util",
]
