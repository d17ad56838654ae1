# Type stubs of aclrt's `acl` module (acl.rt): pyACL's signatures (positional only,
# outputs first and `ret` last, plain ints for addresses and handles).
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

def create_context(device_id: int, /) -> Tuple[int, int]:
    """create_context(device_id) -> (context, ret): aclrtCreateContext.

    Creates a context on ``device_id`` and makes it current on the calling thread
    (setting the device if none was set).
    """
    ...


def create_event() -> Tuple[int, int]:
    """create_event() -> (event, ret): aclrtCreateEvent.
    """
    ...


def create_event_ex_with_flag(flag: int, /) -> Tuple[int, int]:
    """create_event_ex_with_flag(flag) -> (event, ret): aclrtCreateEventExWithFlag.
    """
    ...


def create_event_with_flag(flag: int, /) -> Tuple[int, int]:
    """create_event_with_flag(flag) -> (event, ret): aclrtCreateEventWithFlag.

    ``ACL_EVENT_SYNC = 0x1`` (usable by ``stream_wait_event``), ``ACL_EVENT_TIME_LINE =
    0x8`` (timing); flags may be OR-ed.
    """
    ...


def create_stream() -> Tuple[int, int]:
    """create_stream() -> (stream, ret): aclrtCreateStream.

    A new stream in the current context. Stream ``0`` is the context's default stream
    wherever a stream is taken.
    """
    ...


def create_stream_with_config(priority: int, flag: int, /) -> Tuple[int, int]:
    """create_stream_with_config(priority, flag) -> (stream, ret):
    aclrtCreateStreamWithConfig.
    """
    ...


def ctx_get_current_default_stream() -> Tuple[int, int]:
    """ctx_get_current_default_stream() -> (stream, ret): aclrtCtxGetCurrentDefaultStream.
    """
    ...


def destroy_context(context: int, /) -> int:
    """destroy_context(context) -> ret: aclrtDestroyContext (GIL released).

    Destroys a context from ``create_context`` (never the default one); its streams,
    events and memory must be released first.
    """
    ...


def destroy_event(event: int, /) -> int:
    """destroy_event(event) -> ret: aclrtDestroyEvent.
    """
    ...


def destroy_stream(stream: int, /) -> int:
    """destroy_stream(stream) -> ret: aclrtDestroyStream (GIL released: it waits for the
    stream).

    Waits for the stream's work, then destroys it; it must belong to the current
    context.
    """
    ...


def destroy_stream_force(stream: int, /) -> int:
    """destroy_stream_force(stream) -> ret: aclrtDestroyStreamForce (GIL released).
    """
    ...


def device_can_access_peer(device_id: int, peer_device_id: int, /) -> Tuple[int, int]:
    """device_can_access_peer(device_id, peer_device_id) -> (can_access_peer, ret):
    aclrtDeviceCanAccessPeer (1 or 0).

    Whether ``device_id`` can access ``peer_device_id``'s memory (1 or 0); the same id
    is refused (100000).
    """
    ...


def device_disable_peer_access(peer_device_id: int, /) -> int:
    """device_disable_peer_access(peer_device_id) -> ret: aclrtDeviceDisablePeerAccess.

    Undoes ``device_enable_peer_access``.
    """
    ...


def device_enable_peer_access(peer_device_id: int, flags: int, /) -> int:
    """device_enable_peer_access(peer_device_id, flags) -> ret: aclrtDeviceEnablePeerAccess
    (from the current device; flags must be 0).

    Lets the current device access ``peer_device_id``'s memory (one direction);
    ``flags`` must be 0 (200006 otherwise).
    """
    ...


def event_elapsed_time(start: int, end: int, /) -> Tuple[int]:
    """event_elapsed_time(start, end) -> (ms: float, ret): aclrtEventElapsedTime.

    Milliseconds between two recorded timing events; record both on one stream and
    synchronise it first.
    """
    ...


def event_get_timestamp(event: int, /) -> Tuple[int, int]:
    """event_get_timestamp(event) -> (timestamp, ret): aclrtEventGetTimestamp.
    """
    ...


def free(dev_ptr: int, /) -> int:
    """free(dev_ptr) -> ret: aclrtFree.

    Frees memory from ``malloc``; it does not wait for queued work that uses it (the
    simulator refuses with 507004).
    """
    ...


def free_host(host_ptr: int, /) -> int:
    """free_host(host_ptr) -> ret: aclrtFreeHost.

    Frees memory from ``malloc_host`` only.
    """
    ...


def get_context() -> Tuple[int, int]:
    """get_context() -> (context, ret): aclrtGetCurrentContext.
    """
    ...


def get_device() -> Tuple[int, int]:
    """get_device() -> (device_id, ret): aclrtGetDevice.
    """
    ...


def get_device_count() -> Tuple[int, int]:
    """get_device_count() -> (count, ret): aclrtGetDeviceCount.
    """
    ...


def get_event_avail_num() -> Tuple[int, int]:
    """get_event_avail_num() -> (count, ret): aclrtGetEventAvailNum.
    """
    ...


def get_last_error(level: int, /) -> int:
    """get_last_error(level) -> ret: aclrtGetLastError: the calling thread's last error
    code, then cleared (level 0 = ACL_RT_THREAD_LEVEL).

    The calling thread's last runtime error (``level`` ``ACL_RT_THREAD_LEVEL = 0``),
    cleared by the call.
    """
    ...


def get_mem_info(attr: int, /) -> Tuple[int, int, int]:
    """get_mem_info(attr) -> (free, total, ret): aclrtGetMemInfo.

    ``(free, total)`` bytes of ``attr`` (``ACL_DDR_MEM = 0``, ``ACL_HBM_MEM = 1``, ...);
    needs a current device.
    """
    ...


def get_run_mode() -> Tuple[int, int]:
    """get_run_mode() -> (run_mode, ret): aclrtGetRunMode (ACL_DEVICE = 0, ACL_HOST = 1).

    ``ACL_HOST`` (1): the application runs on the host, runtime host memory is host
    memory. ``ACL_DEVICE`` (0): it runs on the device's CPU; ``malloc_host`` memory is
    device memory and copies between runtime memory are device-to-device.
    """
    ...


def get_stream_available_num() -> Tuple[int, int]:
    """get_stream_available_num() -> (count, ret): aclrtGetStreamAvailableNum.
    """
    ...


def launch_callback(fn: Callable[..., Any], user_data: Any, block_type: int, stream: int, /) -> int:
    """launch_callback(fn, user_data, block_type, stream) -> ret: aclrtLaunchCallback.
    `fn(user_data)` runs on the thread subscribed to the stream, holding the GIL; an
    exception it raises is printed and swallowed.

    Queues ``fn(user_data)`` on ``stream``: it runs on the subscribed thread (inside its
    ``process_report``) once the work queued before it is done; ``block_type``
    ``ACL_CALLBACK_BLOCK = 1`` makes later work wait for it. An exception it raises
    (``SystemExit`` and ``KeyboardInterrupt`` included) is printed through
    ``sys.unraisablehook`` and ignored.
    """
    ...


def malloc(size: int, policy: int, /) -> Tuple[int, int]:
    """malloc(size, policy) -> (dev_ptr, ret): aclrtMalloc.

    Device memory of ``size`` bytes (size 0 fails). ``policy``:
    ``ACL_MEM_MALLOC_HUGE_FIRST = 0``, ``HUGE_ONLY = 1``, ``NORMAL_ONLY = 2``. The
    output is 0 on failure.
    """
    ...


def malloc_align32(size: int, policy: int, /) -> Tuple[int, int]:
    """malloc_align32(size, policy) -> (dev_ptr, ret): aclrtMallocAlign32.
    """
    ...


def malloc_cached(size: int, policy: int, /) -> Tuple[int, int]:
    """malloc_cached(size, policy) -> (dev_ptr, ret): aclrtMallocCached.
    """
    ...


def malloc_host(size: int, /) -> Tuple[int, int]:
    """malloc_host(size) -> (host_ptr, ret): aclrtMallocHost (device memory in ACL_DEVICE
    run mode).

    Pinned host memory (64-byte aligned); device memory in ``ACL_DEVICE`` run mode. Not
    initialised: ``memset`` it before use.
    """
    ...


def memcpy(dst: int, dest_max: int, src: int, count: int, kind: int, /) -> int:
    """memcpy(dst, dest_max, src, count, kind) -> ret: aclrtMemcpy.

    Copies ``count`` bytes (at most ``dest_max``). ``kind``: ``HOST_TO_HOST = 0``,
    ``HOST_TO_DEVICE = 1``, ``DEVICE_TO_HOST = 2``, ``DEVICE_TO_DEVICE = 3``; it must
    agree with where the memory lies (the simulator answers 107016 otherwise).
    Application memory (``bytes_to_ptr``, numpy) is accepted on the host side.
    """
    ...


def memcpy2d(dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int, /) -> int:
    """memcpy2d(dst, dpitch, src, spitch, width, height, kind) -> ret: aclrtMemcpy2d.
    """
    ...


def memcpy2d_async(dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int, stream: int, /) -> int:
    """memcpy2d_async(dst, dpitch, src, spitch, width, height, kind, stream) -> ret:
    aclrtMemcpy2dAsync.
    """
    ...


def memcpy_async(dst: int, dest_max: int, src: int, count: int, kind: int, stream: int, /) -> int:
    """memcpy_async(dst, dest_max, src, count, kind, stream) -> ret: aclrtMemcpyAsync.

    Queues the copy on ``stream``; the host side must be ``malloc_host`` memory, and
    both sides stay in use until the stream is synchronised. Host-to-host is refused.
    """
    ...


def memset(dev_ptr: int, max_count: int, value: int, count: int, /) -> int:
    """memset(dev_ptr, max_count, value, count) -> ret: aclrtMemset.

    Sets ``count`` bytes (at most ``max_count``) at ``dev_ptr`` to ``value``; host or
    device memory, decided by the address.
    """
    ...


def memset_async(dev_ptr: int, max_count: int, value: int, count: int, stream: int, /) -> int:
    """memset_async(dev_ptr, max_count, value, count, stream) -> ret: aclrtMemsetAsync.
    """
    ...


def peek_at_last_error(level: int, /) -> int:
    """peek_at_last_error(level) -> ret: aclrtPeekAtLastError: the calling thread's last
    error code, kept (level 0 = ACL_RT_THREAD_LEVEL).

    The calling thread's last runtime error (``level`` ``ACL_RT_THREAD_LEVEL = 0``),
    kept.
    """
    ...


def process_report(timeout_ms: int, /) -> int:
    """process_report(timeout_ms) -> ret: aclrtProcessReport (GIL released; callbacks run
    here with the GIL re-acquired).

    Runs the callbacks due on the streams this thread is subscribed to, waiting up to
    ``timeout_ms`` (-1: for ever); call it in a loop. Non-zero on timeout.
    """
    ...


def query_event(event: int, /) -> Tuple[int, int]:
    """query_event(event) -> (status, ret): aclrtQueryEvent (deprecated by the runtime).
    """
    ...


def query_event_status(event: int, /) -> Tuple[int, int]:
    """query_event_status(event) -> (status, ret): aclrtQueryEventStatus.

    ``ACL_EVENT_RECORDED_STATUS_NOT_READY = 0``, ``..._COMPLETE = 1``.
    """
    ...


def query_event_wait_status(event: int, /) -> Tuple[int, int]:
    """query_event_wait_status(event) -> (status, ret): aclrtQueryEventWaitStatus.
    """
    ...


def record_event(event: int, stream: int, /) -> int:
    """record_event(event, stream) -> ret: aclrtRecordEvent.

    Captures the tasks already queued on ``stream``; the event completes when they are
    done.
    """
    ...


def reset_device(device_id: int, /) -> int:
    """reset_device(device_id) -> ret: aclrtResetDevice (GIL released).

    Releases the device's default context and stream; explicit contexts, streams, events
    and memory of the device must be released first.
    """
    ...


def reset_device_force(device_id: int, /) -> int:
    """reset_device_force(device_id) -> ret: aclrtResetDeviceForce (GIL released).
    """
    ...


def reset_event(event: int, stream: int, /) -> int:
    """reset_event(event, stream) -> ret: aclrtResetEvent.
    """
    ...


def set_context(context: int, /) -> int:
    """set_context(context) -> ret: aclrtSetCurrentContext.

    Makes ``context`` current on the calling thread; threads from
    ``acl.util.start_thread`` must call it themselves.
    """
    ...


def set_device(device_id: int, /) -> int:
    """set_device(device_id) -> ret: aclrtSetDevice.

    Makes ``device_id`` the calling thread's device, creating its default context and
    stream on first use.
    """
    ...


def set_op_wait_timeout(timeout_s: int, /) -> int:
    """set_op_wait_timeout(timeout_s) -> ret: aclrtSetOpWaitTimeout.
    """
    ...


def set_stream_failure_mode(stream: int, mode: int, /) -> int:
    """set_stream_failure_mode(stream, mode) -> ret: aclrtSetStreamFailureMode.
    """
    ...


def stream_query(stream: int, /) -> Tuple[int, int]:
    """stream_query(stream) -> (status, ret): aclrtStreamQuery.
    """
    ...


def stream_wait_event(stream: int, event: int, /) -> int:
    """stream_wait_event(stream, event) -> ret: aclrtStreamWaitEvent (GIL released).

    Later work of ``stream`` waits for ``event`` (asynchronous; several streams may wait
    on one event).
    """
    ...


def subscribe_report(thread_id: int, stream: int, /) -> int:
    """subscribe_report(thread_id, stream) -> ret: aclrtSubscribeReport. thread_id:
    threading.Thread.ident or an acl.util.start_thread id.

    Makes the thread ``thread_id`` (``threading.Thread.ident`` or an
    ``acl.util.start_thread`` id) serve the callbacks of ``stream``; one thread may
    serve several streams of a device.
    """
    ...


def synchronize_device() -> int:
    """synchronize_device() -> ret: aclrtSynchronizeDevice (GIL released).
    """
    ...


def synchronize_device_with_timeout(timeout: int, /) -> int:
    """synchronize_device_with_timeout(timeout) -> ret: aclrtSynchronizeDeviceWithTimeout
    (GIL released).
    """
    ...


def synchronize_event(event: int, /) -> int:
    """synchronize_event(event) -> ret: aclrtSynchronizeEvent (GIL released).

    Waits until the work captured by the event's last record is done.
    """
    ...


def synchronize_event_with_timeout(event: int, timeout: int, /) -> int:
    """synchronize_event_with_timeout(event, timeout) -> ret:
    aclrtSynchronizeEventWithTimeout (GIL released).
    """
    ...


def synchronize_stream(stream: int, /) -> int:
    """synchronize_stream(stream) -> ret: aclrtSynchronizeStream (GIL released; 0 = default
    stream).

    Waits for every task queued on ``stream`` (``0``: the default stream). Called from a
    blocking callback of that same stream it returns 107000 instead of waiting for
    itself.
    """
    ...


def synchronize_stream_with_timeout(stream: int, timeout: int, /) -> int:
    """synchronize_stream_with_timeout(stream, timeout) -> ret:
    aclrtSynchronizeStreamWithTimeout (GIL released).
    """
    ...


def unsubscribe_report(thread_id: int, stream: int, /) -> int:
    """unsubscribe_report(thread_id, stream) -> ret: aclrtUnSubscribeReport (GIL released).
    """
    ...


# ---- the runtime's newer resources (beyond pyacl-facts.md's rows) ----

def create_notify(flag: int, /) -> Tuple[int, int]:
    """create_notify(flag) -> (notify, ret): aclrtCreateNotify.
    """
    ...


def destroy_notify(notify: int, /) -> int:
    """destroy_notify(notify) -> ret: aclrtDestroyNotify.
    """
    ...


def device_get_bare_tgid() -> Tuple[int, int]:
    """device_get_bare_tgid() -> (pid, ret): aclrtDeviceGetBareTgid.
    """
    ...


def free_physical(handle: int, /) -> int:
    """free_physical(handle) -> ret: aclrtFreePhysical.
    """
    ...


def get_device_capability(device_id: int, feature: int, /) -> Tuple[int, int]:
    """get_device_capability(device_id, feature) -> (value, ret): aclrtGetDeviceCapability.
    """
    ...


def get_device_info(device_id: int, attr: int, /) -> Tuple[int, int]:
    """get_device_info(device_id, attr) -> (value, ret): aclrtGetDeviceInfo.
    """
    ...


def get_device_res_limit(device_id: int, type: int, /) -> Tuple[int, int]:
    """get_device_res_limit(device_id, type) -> (value, ret): aclrtGetDeviceResLimit.
    """
    ...


def get_device_sat_mode() -> Tuple[int, int]:
    """get_device_sat_mode() -> (mode, ret): aclrtGetDeviceSatMode.
    """
    ...


def get_device_utilization_rate(device_id: int, /) -> Tuple[Dict[str, int], int]:
    """get_device_utilization_rate(device_id) -> (dict, ret): aclrtGetDeviceUtilizationRate.

    The dict has ``cube_utilization``, ``vector_utilization``, ``aicpu_utilization``,
    ``memory_utilization`` (percent, -1 where unknown).
    """
    ...


def get_notify_id(notify: int, /) -> Tuple[int, int]:
    """get_notify_id(notify) -> (notify_id, ret): aclrtGetNotifyId.
    """
    ...


def ipc_get_event_handle(event: int, /) -> Tuple[bytes, int]:
    """ipc_get_event_handle(event) -> (handle, ret): aclrtIpcGetEventHandle.

    ``handle`` is the 64 bytes another process passes to ``ipc_open_event_handle``.
    """
    ...


def ipc_mem_close(key: str, /) -> int:
    """ipc_mem_close(key) -> ret: aclrtIpcMemClose.
    """
    ...


def ipc_mem_get_export_key(dev_ptr: int, size: int, len: int, flags: int, /) -> Tuple[str, int]:
    """ipc_mem_get_export_key(dev_ptr, size, len, flags) -> (key, ret): aclrtIpcMemGetExportKey.
    """
    ...


def ipc_mem_import_by_key(key: str, flags: int, /) -> Tuple[int, int]:
    """ipc_mem_import_by_key(key, flags) -> (dev_ptr, ret): aclrtIpcMemImportByKey.
    """
    ...


def ipc_mem_set_import_pid(key: str, pid_list: Sequence[int], /) -> int:
    """ipc_mem_set_import_pid(key, pid_list) -> ret: aclrtIpcMemSetImportPid.
    """
    ...


def ipc_open_event_handle(handle: bytes, /) -> Tuple[int, int]:
    """ipc_open_event_handle(handle: bytes) -> (event, ret): aclrtIpcOpenEventHandle.
    """
    ...


def malloc_physical(size: int, prop: Dict[str, int], flags: int, /) -> Tuple[int, int]:
    """malloc_physical(size, prop: dict, flags) -> (handle, ret): aclrtMallocPhysical.
    """
    ...


def map_mem(vir_ptr: int, size: int, offset: int, handle: int, flags: int, /) -> int:
    """map_mem(vir_ptr, size, offset, handle, flags) -> ret: aclrtMapMem.
    """
    ...


def mem_get_address_range(ptr: int, /) -> Tuple[int, int, int]:
    """mem_get_address_range(ptr) -> (base, size, ret): aclrtMemGetAddressRange.
    """
    ...


def mem_get_allocation_granularity(prop: Dict[str, int], option: int, /) -> Tuple[int, int]:
    """mem_get_allocation_granularity(prop: dict, option) -> (granularity, ret): aclrtMemGetAllocationGranularity.
    """
    ...


def mem_set_access(vir_ptr: int, size: int, descs: Sequence[Tuple[int, int, int]], /) -> int:
    """mem_set_access(vir_ptr, size, [(flags, location_id, location_type), ...]) -> ret: aclrtMemSetAccess.
    """
    ...


def notify_get_export_key(notify: int, len: int, flags: int, /) -> Tuple[str, int]:
    """notify_get_export_key(notify, len, flags) -> (key, ret): aclrtNotifyGetExportKey.
    """
    ...


def notify_import_by_key(key: str, flags: int, /) -> Tuple[int, int]:
    """notify_import_by_key(key, flags) -> (notify, ret): aclrtNotifyImportByKey.
    """
    ...


def notify_set_import_pid(notify: int, pid_list: Sequence[int], /) -> int:
    """notify_set_import_pid(notify, pid_list) -> ret: aclrtNotifySetImportPid.
    """
    ...


def query_device_status(device_id: int, /) -> Tuple[int, int]:
    """query_device_status(device_id) -> (status, ret): aclrtQueryDeviceStatus (0 normal, 1 abnormal).
    """
    ...


def record_notify(notify: int, stream: int, /) -> int:
    """record_notify(notify, stream) -> ret: aclrtRecordNotify (GIL released).
    """
    ...


def release_mem_address(vir_ptr: int, /) -> int:
    """release_mem_address(vir_ptr) -> ret: aclrtReleaseMemAddress.
    """
    ...


def reserve_mem_address(size: int, alignment: int, expect_ptr: int, flags: int, /) -> Tuple[int, int]:
    """reserve_mem_address(size, alignment, expect_ptr, flags) -> (vir_ptr, ret): aclrtReserveMemAddress.
    """
    ...


def reset_device_res_limit(device_id: int, /) -> int:
    """reset_device_res_limit(device_id) -> ret: aclrtResetDeviceResLimit.
    """
    ...


def set_device_res_limit(device_id: int, type: int, value: int, /) -> int:
    """set_device_res_limit(device_id, type, value) -> ret: aclrtSetDeviceResLimit.
    """
    ...


def set_device_sat_mode(mode: int, /) -> int:
    """set_device_sat_mode(mode) -> ret: aclrtSetDeviceSatMode (0 saturation, 1 Inf/NaN).
    """
    ...


def stream_get_flags(stream: int, /) -> Tuple[int, int]:
    """stream_get_flags(stream) -> (flags, ret): aclrtStreamGetFlags.
    """
    ...


def stream_get_id(stream: int, /) -> Tuple[int, int]:
    """stream_get_id(stream) -> (stream_id, ret): aclrtStreamGetId.
    """
    ...


def stream_get_priority(stream: int, /) -> Tuple[int, int]:
    """stream_get_priority(stream) -> (priority, ret): aclrtStreamGetPriority.
    """
    ...


def unmap_mem(vir_ptr: int, /) -> int:
    """unmap_mem(vir_ptr) -> ret: aclrtUnmapMem.
    """
    ...


def value_wait(dev_ptr: int, value: int, flag: int, stream: int, /) -> int:
    """value_wait(dev_ptr, value, flag, stream) -> ret: aclrtValueWait (GIL released).
    """
    ...


def value_write(dev_ptr: int, value: int, flag: int, stream: int, /) -> int:
    """value_write(dev_ptr, value, flag, stream) -> ret: aclrtValueWrite (GIL released).
    """
    ...


def wait_and_reset_notify(notify: int, stream: int, timeout: int, /) -> int:
    """wait_and_reset_notify(notify, stream, timeout) -> ret: aclrtWaitAndResetNotify (GIL released).
    """
    ...


def set_exception_info_callback(fn: Optional[Callable[[Dict[str, int]], Any]], /) -> int:
    """set_exception_info_callback(fn) -> ret: aclrtSetExceptionInfoCallback.

    ``fn(info)`` runs on the runtime's thread that reports a failed task, with a dict of
    ``device_id``, ``stream_id``, ``task_id``, ``thread_id``, ``error_code``; an exception
    it raises is printed (unraisable). ``None`` removes the callback.
    """
    ...
