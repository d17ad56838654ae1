# Type stubs of aclrt's `acl` module (acl.util): pyACL's signatures (positional only,
# outputs first and `ret` last, plain ints for addresses and handles).
from typing import Any, Callable, Optional, Tuple

def bytes_to_ptr(data: bytes, /) -> int:
    """bytes_to_ptr(data: bytes) -> ptr: the address of the bytes object's own buffer (no
    copy). The object must outlive every use of the address.

    The address of the bytes object's own buffer (no copy): a copy target of ``memcpy``
    too (then read it with ``np.frombuffer``). The object must outlive every use of the
    address.
    """
    ...


def numpy_contiguous_to_ptr(arr: Any, /) -> Tuple[int, Any]:
    """numpy_contiguous_to_ptr(arr) -> (ptr, contiguous_arr): a C-contiguous array (`arr`
    itself when it already is) and its address; keep it alive.
    """
    ...


def numpy_to_ptr(arr: Any, /) -> int:
    """numpy_to_ptr(arr) -> ptr: the array's data address (no copy). Warns that it will be
    deprecated, and again when the array is not C-contiguous.
    """
    ...


def ptr_to_bytes(ptr: int, size: int, /) -> bytes:
    """ptr_to_bytes(ptr, size) -> bytes: a copy of `size` bytes at `ptr`. A negative size
    is a `ValueError`; a size the interpreter cannot allocate raises `MemoryError` (or
    `OverflowError`), before anything is read.

    A copy of ``size`` bytes at ``ptr``: ``ValueError`` for a negative size,
    ``MemoryError``/``OverflowError`` for one that cannot be allocated. ``ptr`` is not
    checked (pyACL's contract).
    """
    ...


def ptr_to_numpy(ptr: int, shape: Tuple[int, ...], npy_type: int, /) -> Any:
    """ptr_to_numpy(ptr, shape: tuple, npy_type: int) -> ndarray: a writable view of the
    memory at `ptr`, no copy; nothing keeps the memory alive.

    A writable numpy view of the memory at ``ptr`` (no copy; nothing keeps it alive).
    NPY codes: 0 bool, 1 int8, 2 uint8, 3 int16, 4 uint16, 5 int32, 6 uint32, 7 int64, 8
    uint64, 9 longlong, 10 ulonglong, 11 float32, 12 float64, 23 float16. Warns
    (deprecated).
    """
    ...


def start_thread(thr_func: Callable[..., Any], args: Any, /) -> Tuple[int, int]:
    """start_thread(thr_func, args) -> (thread_id, ret): runs `thr_func(args)`
    (`thr_func()` when `args` is None) on a new thread holding the GIL while it runs
    Python. `thread_id` is the thread's pthread id, which is `threading.get_ident()`
    inside it and what `subscribe_report` takes.

    Runs ``thr_func(args)`` (``thr_func()`` when ``args`` is None) on a new thread;
    ``thread_id`` is its ``pthread_t`` (what ``subscribe_report`` takes). An exception
    in it is printed through ``sys.unraisablehook``; ``SystemExit`` ends only the
    thread.
    """
    ...


def stop_thread(thread_id: int, /) -> int:
    """stop_thread(thread_id) -> ret: waits for a thread of `start_thread` (GIL released).
    Raises RuntimeError if its function raised. `ret` is 3 (ESRCH) for an unknown id and
    35 (EDEADLK) when a thread stops itself.

    Joins a thread of ``start_thread`` (GIL released); raises ``RuntimeError`` if its
    function raised (not for ``SystemExit``); ret 3 (ESRCH) for an unknown id, 35
    (EDEADLK) for the calling thread.
    """
    ...
