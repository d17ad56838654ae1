# Type stubs of aclrt's `acl` module (acl): pyACL's signatures (positional only,
# outputs first and `ret` last, plain ints for addresses and handles).
from typing import Any, Callable, Optional, Tuple

from . import rt as rt, util as util

__version__: str

def app_log(log_level: int, message: str, /) -> None:
    """app_log(log_level, message) -> None: aclAppLog.

    Writes one application log record of ``log_level`` (ACL_DEBUG 0, ACL_INFO 1,
    ACL_WARNING 2, ACL_ERROR 3) carrying the calling Python function, file and line,
    when the level is at least the process's (``ASCEND_GLOBAL_LOG_LEVEL``, default 3:
    errors only). The message is text, never a format string.
    """
    ...


def finalize() -> int:
    """finalize() -> ret: aclFinalize (GIL released).

    Releases the runtime; everything created since ``init`` must be released first (the
    simulator reports 507007 and records each leak). Do not call it from a destructor.
    """
    ...


def finalize_reference() -> Tuple[int, int]:
    """finalize_reference() -> (ref_count, ret): aclFinalizeReference (GIL released).
    """
    ...


def get_recent_err_msg() -> Optional[str]:
    """get_recent_err_msg() -> str | None: aclGetRecentErrMsg.

    The runtime's message for the calling thread's last failure, or ``None``.
    """
    ...


def get_soc_name() -> Optional[str]:
    """get_soc_name() -> str | None: aclrtGetSocName.
    """
    ...


def get_version() -> Tuple[int, int, int, int]:
    """get_version() -> (major, minor, patch, ret): aclrtGetVersion.
    """
    ...


def init(config_path: Optional[str] = None, /) -> int:
    """init(config_path=None) -> ret: aclInit. The path is optional.

    Initialises the runtime once per process (a repeated call returns 100002).
    ``config_path`` is an optional JSON configuration file.
    """
    ...
