/*
 * Conformance rows of sim/FIDELITY.md that a plain C program can check on
 * any libascendcl.so: the simulator's (sys/tests/c_programs.rs runs it there,
 * in both run modes) and the real one on an Ascend machine
 * (sys/tests/fidelity_on_hardware.sh). Each check prints
 *
 *     ROW-ID agree
 *     ROW-ID DIFFER: <call> returned <got>, the table says <want>
 *
 * and the program ends with "fidelity: N agree, M differ, K skipped" and
 * exit code 0 when nothing differs. It uses the default configuration only
 * (no simulator switches); rows that need two devices or a kernel binary are
 * skipped when those are missing. Rows whose answer depends on the chip are
 * decided by the chip's name (aclrtGetSocName).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "acl/acl.h"

static int agreed;
static int differed;
static int skipped;

static void row(const char *id, const char *call, aclError got, aclError want)
{
    if (got == want) {
        printf("%s agree\n", id);
        agreed++;
    } else {
        printf("%s DIFFER: %s returned %d, the table says %d\n", id, call, got, want);
        differed++;
    }
}

static void skip(const char *id, const char *why)
{
    printf("%s skipped: %s\n", id, why);
    skipped++;
}

#define ROW(id, call, want) row(id, #call, (call), (want))

static void nothing(void *arg) { (void)arg; }

static uint64_t my_tid(void) { return (uint64_t)pthread_self(); }

/* Whether the chip has the device control SQ (NULL = default stream in the
 * failure mode, the abort and the async 2-D copy): 910B, 910_93, 950. */
static int has_control_sq(void)
{
    const char *soc = aclrtGetSocName();
    if (soc == NULL) {
        return 1;
    }
    return strncmp(soc, "Ascend910B", 10) == 0 || strncmp(soc, "Ascend910_93", 12) == 0 ||
           strncmp(soc, "Ascend950", 9) == 0;
}

static void callbacks(void)
{
    aclrtStream s = NULL;
    aclrtStream t = NULL;
    if (aclrtCreateStream(&s) != ACL_SUCCESS || aclrtCreateStream(&t) != ACL_SUCCESS) {
        skip("CB-*", "aclrtCreateStream failed");
        return;
    }
    uint64_t tid = my_tid();
    /* CB-MIX-1: a subscribed stream refuses host functions. */
    if (aclrtSubscribeReport(tid, s) == ACL_SUCCESS) {
        ROW("CB-MIX-1", aclrtLaunchHostFunc(s, nothing, NULL), ACL_ERROR_RT_STREAM_SUBSCRIBE);
        /* CB-SUB-2: subscribed twice. */
        ROW("CB-SUB-2", aclrtSubscribeReport(tid, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
        /* CB-NULL-FN (callback): NULL function, valid blockType. */
        ROW("CB-NULL-FN", aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, s),
            ACL_ERROR_RT_PARAM_INVALID);
        ROW("CB-1", aclrtLaunchCallback(nothing, NULL, (aclrtCallbackBlockType)7, s),
            ACL_ERROR_INVALID_PARAM);
        (void)aclrtUnSubscribeReport(tid, s);
    } else {
        skip("CB-MIX-1", "aclrtSubscribeReport failed");
    }
    /* CB-SUB-2: unsubscribing a stream that is not subscribed. */
    ROW("CB-SUB-2", aclrtUnSubscribeReport(tid, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    /* CB-NULL-FN (host function). */
    ROW("CB-NULL-FN", aclrtLaunchHostFunc(t, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
    /* CB-MIX-2: a stream that had a host function refuses the report flow. */
    if (aclrtLaunchHostFunc(t, nothing, NULL) == ACL_SUCCESS &&
        aclrtSynchronizeStream(t) == ACL_SUCCESS) {
        ROW("CB-MIX-2", aclrtSubscribeReport(tid, t), ACL_ERROR_RT_STREAM_SUBSCRIBE);
        ROW("CB-MIX-2", aclrtLaunchCallback(nothing, NULL, ACL_CALLBACK_BLOCK, t),
            ACL_ERROR_RT_STREAM_SUBSCRIBE);
        ROW("CB-MIX-2", aclrtUnSubscribeReport(tid, t), ACL_ERROR_RT_STREAM_SUBSCRIBE);
    } else {
        skip("CB-MIX-2", "aclrtLaunchHostFunc failed");
    }
    /* CB-2: aclrtProcessReport timeouts. */
    ROW("CB-2", aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
    ROW("CB-2", aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM);
    (void)aclrtDestroyStream(s);
    (void)aclrtDestroyStream(t);
}

static void streams(void)
{
    aclrtStream s = NULL;
    ROW("STREAM-CFG-3",
        aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_FAST_LAUNCH),
        ACL_ERROR_RT_PARAM_INVALID);
    ROW("STREAM-4", aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);
    ROW("STREAM-9", aclrtSynchronizeStreamWithTimeout(NULL, 0), ACL_ERROR_RT_PARAM_INVALID);
    ROW("STREAM-9", aclrtSynchronizeStreamWithTimeout(NULL, -2), ACL_ERROR_RT_PARAM_INVALID);
    ROW("DEV-9", aclrtSynchronizeDeviceWithTimeout(0), ACL_ERROR_RT_PARAM_INVALID);
    ROW("STREAM-10", aclrtStreamQuery(NULL, NULL), ACL_ERROR_INVALID_PARAM);
    /* SOC-NULL-STREAM: the failure mode of the default stream. */
    ROW("SOC-NULL-STREAM", aclrtSetStreamFailureMode(NULL, ACL_CONTINUE_ON_FAILURE),
        has_control_sq() ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID);
}

static void events(void)
{
    aclrtEvent e = NULL;
    aclrtEvent ex = NULL;
    if (aclrtCreateEvent(&e) != ACL_SUCCESS ||
        aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC) != ACL_SUCCESS) {
        skip("EVENT-*", "creating the events failed");
        return;
    }
    aclrtEventStatus st = ACL_EVENT_STATUS_RESERVED;
    aclError code = aclrtQueryEvent(e, &st);
    row("EVENT-Q-1", "aclrtQueryEvent(never recorded)", code, ACL_SUCCESS);
    row("EVENT-Q-1", "status of a never recorded event", (aclError)st,
        (aclError)ACL_EVENT_STATUS_COMPLETE);
    aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    (void)aclrtQueryEventStatus(e, &rs);
    row("EVENT-QS-1", "aclrtQueryEventStatus(never recorded, plain)", (aclError)rs,
        (aclError)ACL_EVENT_RECORDED_STATUS_NOT_READY);
    rs = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    (void)aclrtQueryEventStatus(ex, &rs);
    row("EVENT-QS-1", "aclrtQueryEventStatus(never recorded, Ex)", (aclError)rs,
        (aclError)ACL_EVENT_RECORDED_STATUS_COMPLETE);
    ROW("EVENT-Q-2", aclrtQueryEvent(ex, &st), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ROW("EVENT-S-2", aclrtSynchronizeEventWithTimeout(e, 0), ACL_ERROR_RT_PARAM_INVALID);
    aclrtEvent devonly = NULL;
    if (aclrtCreateEventWithFlag(&devonly, ACL_EVENT_DEVICE_USE_ONLY) == ACL_SUCCESS) {
        ROW("EVENT-DEVONLY", aclrtRecordEvent(devonly, NULL), ACL_ERROR_RT_PARAM_INVALID);
        ROW("EVENT-DEVONLY", aclrtStreamWaitEvent(NULL, devonly), ACL_ERROR_RT_PARAM_INVALID);
        (void)aclrtDestroyEvent(devonly);
    } else {
        skip("EVENT-DEVONLY", "creating a device-only event failed");
    }
    aclrtEvent never = NULL;
    ROW("EVENT-C-2", aclrtCreateEventWithFlag(&never, 0), ACL_ERROR_RT_PARAM_INVALID);
    ROW("EVENT-D-1", aclrtDestroyEvent(NULL), ACL_ERROR_INVALID_PARAM);
    (void)aclrtDestroyEvent(e);
    (void)aclrtDestroyEvent(ex);
}

static void copies(void)
{
    void *a = NULL;
    void *b = NULL;
    if (aclrtMalloc(&a, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMalloc(&b, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        skip("COPY-*", "aclrtMalloc failed");
        return;
    }
    aclrtRunMode mode = ACL_HOST;
    (void)aclrtGetRunMode(&mode);
    static unsigned char src[4096];
    static unsigned char dst[4096];
    ROW("COPY-1", aclrtMemcpy(NULL, 0, NULL, 0, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
    ROW("COPY-1", aclrtMemcpy(a, 16, src, 32, ACL_MEMCPY_HOST_TO_DEVICE),
        ACL_ERROR_RT_PARAM_INVALID);
    ROW("COPY-1", aclrtMemcpy(a, 16, src, 16, (aclrtMemcpyKind)6), ACL_ERROR_INVALID_PARAM);
    ROW("COPY2D-SYNC-KIND", aclrtMemcpy2d(b, 64, a, 64, 64, 4, ACL_MEMCPY_DEVICE_TO_DEVICE),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    ROW("COPY2D-SYNC-KIND", aclrtMemcpy2d(b, 64, a, 64, 64, 4, ACL_MEMCPY_DEFAULT),
        ACL_ERROR_RT_PARAM_INVALID);
    ROW("COPY2D-SYNC-KIND", aclrtMemcpy2d(dst, 64, src, 64, 64, 4, ACL_MEMCPY_DEFAULT),
        ACL_ERROR_RT_PARAM_INVALID);
    ROW("COPY2D-SYNC-KIND", aclrtMemcpy2d(a, 64, src, 64, 64, 4, ACL_MEMCPY_DEFAULT),
        ACL_SUCCESS);
    ROW("COPY2D-LIMIT",
        aclrtMemcpy2d(b, 5000001, a, 5000001, 5000001, 1, ACL_MEMCPY_DEVICE_TO_HOST),
        ACL_ERROR_RT_PARAM_INVALID);
    ROW("COPY2D-LIMIT", aclrtMemcpy2d(b, 1, a, 1, 1, 5242881, ACL_MEMCPY_DEVICE_TO_HOST),
        ACL_ERROR_RT_PARAM_INVALID);
    ROW("COPY2D-1", aclrtMemcpy2d(b, 8, a, 8, 16, 1, ACL_MEMCPY_DEVICE_TO_HOST),
        ACL_ERROR_INVALID_PARAM);
    ROW("COPY2D-1", aclrtMemcpy2d(b, 64, a, 64, 0, 4, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);

    aclrtStream s = NULL;
    if (aclrtCreateStream(&s) != ACL_SUCCESS) {
        skip("COPY-ASYNC-*", "aclrtCreateStream failed");
    } else {
        ROW("COPY2D-LIMIT",
            aclrtMemcpy2dAsync(b, 5000001, a, 5000001, 5000001, 1, ACL_MEMCPY_DEVICE_TO_DEVICE, s),
            ACL_ERROR_RT_PARAM_INVALID);
        ROW("COPY2D-ASYNC-KIND", aclrtMemcpy2dAsync(b, 64, a, 64, 64, 4, ACL_MEMCPY_DEFAULT, s),
            mode == ACL_HOST ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID);
        void *h1 = NULL;
        void *h2 = NULL;
        if (mode == ACL_HOST && aclrtMallocHost(&h1, 256) == ACL_SUCCESS &&
            aclrtMallocHost(&h2, 256) == ACL_SUCCESS) {
            ROW("COPY-ASYNC-H2H", aclrtMemcpyAsync(h2, 256, h1, 256, ACL_MEMCPY_DEFAULT, s),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
            ROW("COPY-ASYNC-H2H", aclrtMemcpyAsync(h2, 256, h1, 256, ACL_MEMCPY_HOST_TO_HOST, s),
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
        } else {
            skip("COPY-ASYNC-H2H", "host run mode only");
        }
        (void)aclrtSynchronizeStream(s);
        if (h1 != NULL) {
            (void)aclrtFreeHost(h1);
        }
        if (h2 != NULL) {
            (void)aclrtFreeHost(h2);
        }
        (void)aclrtDestroyStream(s);
    }
    ROW("SOC-NULL-STREAM",
        aclrtMemcpy2dAsync(b, 64, a, 64, 64, 4, ACL_MEMCPY_DEVICE_TO_DEVICE, NULL),
        has_control_sq() ? ACL_SUCCESS : ACL_ERROR_RT_PARAM_INVALID);
    (void)aclrtSynchronizeDevice();
    ROW("MEM-4", aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
    ROW("MEM-1", aclrtMalloc(&a, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
    (void)aclrtFree(a);
    (void)aclrtFree(b);
}

static void contexts(void)
{
    aclrtContext c = NULL;
    if (aclrtCreateContext(&c, 0) != ACL_SUCCESS) {
        skip("CTX-DESTROY-2", "aclrtCreateContext failed");
        return;
    }
    (void)aclrtDestroyContext(c);
    ROW("CTX-DESTROY-2", aclrtDestroyContext(c), ACL_ERROR_RT_CONTEXT_NULL);
    ROW("CTX-2", aclrtSetCurrentContext(c), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclrtSetDevice(0);
    (void)aclrtResetDevice(0); /* back to device 0's context, same count */
    ROW("CTX-DESTROY-1", aclrtDestroyContext(NULL), ACL_ERROR_INVALID_PARAM);
    ROW("CTX-2", aclrtSetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);
}

/* The layers: the ACL layer's checks, then the runtime's handle guard,
 * then its argument checks (rows HANDLE-FIRST, MEM-11, EVENT-IPC,
 * STREAM-SYNC-CTX). */
static int is_910b(void)
{
    const char *soc = aclrtGetSocName();
    return soc != NULL && strncmp(soc, "Ascend910B", 10) == 0;
}

static void *sync_without_context(void *stream)
{
    static aclError code;
    code = aclrtSynchronizeStream((aclrtStream)stream);
    return &code;
}

static void layers(void)
{
    aclrtStream dead = NULL;
    void *dev = NULL;
    void *host = NULL;
    if (aclrtCreateStream(&dead) != ACL_SUCCESS || aclrtDestroyStream(dead) != ACL_SUCCESS ||
        aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMallocHost(&host, 64) != ACL_SUCCESS) {
        skip("HANDLE-FIRST", "setup failed");
        return;
    }
    ROW("HANDLE-FIRST", aclrtSynchronizeStreamWithTimeout(dead, 0), ACL_ERROR_RT_INVALID_HANDLE);
    ROW("HANDLE-FIRST", aclrtMemsetAsync(dev, 64, 0, 128, dead), ACL_ERROR_RT_INVALID_HANDLE);
    ROW("HANDLE-FIRST", aclrtMemcpyAsync(dev, 64, host, 128, ACL_MEMCPY_HOST_TO_DEVICE, dead),
        ACL_ERROR_RT_INVALID_HANDLE);
    ROW("HANDLE-FIRST", aclrtLaunchHostFunc(dead, NULL, NULL), ACL_ERROR_RT_INVALID_HANDLE);
    ROW("HANDLE-FIRST", aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, dead),
        ACL_ERROR_RT_INVALID_HANDLE);
    ROW("HANDLE-FIRST", aclrtSynchronizeStreamWithTimeout(dead, -2), ACL_ERROR_RT_PARAM_INVALID);
    (void)aclrtFreeHost(host);
    (void)aclrtFree(dev);

    void *cached = NULL;
    ROW("MEM-11", aclrtMallocCached(&cached, 64, ACL_MEM_MALLOC_HUGE_FIRST_P2P), ACL_SUCCESS);
    if (cached != NULL) {
        (void)aclrtFree(cached);
    }

    aclrtEvent ipc = NULL;
    ROW("EVENT-IPC", aclrtCreateEventExWithFlag(&ipc, ACL_EVENT_IPC),
        is_910b() ? ACL_SUCCESS : ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    if (ipc != NULL) {
        (void)aclrtDestroyEvent(ipc);
    }

    aclrtStream s = NULL;
    pthread_t thread;
    void *result = NULL;
    if (aclrtCreateStream(&s) == ACL_SUCCESS &&
        pthread_create(&thread, NULL, sync_without_context, s) == 0 &&
        pthread_join(thread, &result) == 0) {
        row("STREAM-SYNC-CTX", "aclrtSynchronizeStream(s) on a thread without a context",
            *(aclError *)result, ACL_ERROR_RT_CONTEXT_NULL);
    } else {
        skip("STREAM-SYNC-CTX", "stream or thread creation failed");
    }
    if (s != NULL) {
        (void)aclrtDestroyStream(s);
    }
}

static void devices(void)
{
    uint32_t count = 0;
    (void)aclrtGetDeviceCount(&count);
    ROW("DEV-1", aclrtSetDevice((int32_t)count), ACL_ERROR_RT_INVALID_DEVICEID);
    ROW("PEER-2", aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM);
    /* PEER-1: the ACL layer compares the ids first; the runtime checks the
     * peer id, then the device id, then the output pointer. */
    ROW("PEER-1", aclrtDeviceCanAccessPeer(NULL, (int32_t)count, (int32_t)count),
        ACL_ERROR_INVALID_PARAM);
    ROW("PEER-1", aclrtDeviceCanAccessPeer(NULL, 0, (int32_t)count), ACL_ERROR_RT_INVALID_DEVICEID);
    if (count < 2) {
        skip("CB-SUB-2 (two devices)", "one device");
        skip("PEER-2 (flags)", "one device");
        return;
    }
    ROW("PEER-2", aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_FEATURE_UNSUPPORTED);
    ROW("PEER-1", aclrtDeviceCanAccessPeer(NULL, 0, 1), ACL_ERROR_RT_PARAM_INVALID);
    /* CB-SUB-2: a thread serving device 0 cannot serve device 1. */
    aclrtStream s0 = NULL;
    aclrtStream s1 = NULL;
    uint64_t tid = my_tid();
    if (aclrtCreateStream(&s0) == ACL_SUCCESS && aclrtSubscribeReport(tid, s0) == ACL_SUCCESS &&
        aclrtSetDevice(1) == ACL_SUCCESS && aclrtCreateStream(&s1) == ACL_SUCCESS) {
        ROW("CB-SUB-2", aclrtSubscribeReport(tid, s1), ACL_ERROR_RT_THREAD_SUBSCRIBE);
        (void)aclrtDestroyStream(s1);
        (void)aclrtResetDevice(1);
        (void)aclrtSetDevice(0);
        (void)aclrtUnSubscribeReport(tid, s0);
        (void)aclrtDestroyStream(s0);
        (void)aclrtResetDevice(0); /* the second aclrtSetDevice(0) */
    } else {
        skip("CB-SUB-2 (two devices)", "setup failed");
        if (s0 != NULL) {
            (void)aclrtUnSubscribeReport(tid, s0);
            (void)aclrtDestroyStream(s0);
        }
    }
}

static volatile int gate_open;

static void wait_gate(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&gate_open, __ATOMIC_SEQ_CST)) {
    }
}

/* The thread's binding (rows THREAD-*, CTX-DESTROY-4, DEV-2) and the rows
 * read with it (EVENT-R-2, EVENT-T-3, INIT-ORDER-2, COPY-KIND-BUF,
 * CB-SUB-CTX). Starts and ends with device 0 set once and current. */
static void thread_binding(void)
{
    aclrtContext dflt = NULL;
    aclrtContext c = NULL;
    aclrtContext cur = NULL;
    int32_t dev = -1;
    aclrtStream s = NULL;
    (void)aclrtGetCurrentContext(&dflt);
    if (aclrtCreateContext(&c, 0) != ACL_SUCCESS) {
        skip("THREAD-DESTROY", "aclrtCreateContext failed");
        return;
    }
    (void)aclrtDestroyContext(c);
    /* No fallback to the device's default context. */
    ROW("THREAD-DESTROY", aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL);
    ROW("THREAD-DESTROY", aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    ROW("THREAD-DESTROY", aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
    ROW("THREAD-SET-CURRENT", aclrtSetCurrentContext(dflt), ACL_SUCCESS);

    /* EVENT-R-2: an aclrtCreateEvent event is reset. */
    aclrtEvent e = NULL;
    if (aclrtCreateEvent(&e) == ACL_SUCCESS) {
        (void)aclrtRecordEvent(e, NULL);
        (void)aclrtSynchronizeEvent(e);
        ROW("EVENT-R-2", aclrtResetEvent(e, NULL), ACL_SUCCESS);
        (void)aclrtSynchronizeStream(NULL);
        (void)aclrtDestroyEvent(e);
    }

    /* EVENT-T-3: an end record not yet executed has no timestamp. */
    aclrtEvent start = NULL;
    aclrtEvent end = NULL;
    aclrtStream held = NULL;
    if (aclrtCreateEvent(&start) == ACL_SUCCESS && aclrtCreateEvent(&end) == ACL_SUCCESS &&
        aclrtCreateStream(&held) == ACL_SUCCESS) {
        float ms = 0.0f;
        __atomic_store_n(&gate_open, 0, __ATOMIC_SEQ_CST);
        (void)aclrtRecordEvent(start, held);
        (void)aclrtSynchronizeEvent(start);
        (void)aclrtLaunchHostFunc(held, wait_gate, NULL);
        (void)aclrtRecordEvent(end, held);
        ROW("EVENT-T-3", aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
        __atomic_store_n(&gate_open, 1, __ATOMIC_SEQ_CST);
        (void)aclrtSynchronizeStream(held);
    } else {
        skip("EVENT-T-3", "setup failed");
    }
    if (held != NULL) {
        (void)aclrtDestroyStream(held);
    }
    if (start != NULL) {
        (void)aclrtDestroyEvent(start);
    }
    if (end != NULL) {
        (void)aclrtDestroyEvent(end);
    }

    /* INIT-ORDER-2: counted before the path is read. */
    ROW("INIT-ORDER-2", aclInit("/nonexistent/aclrt-fidelity/acl.json"), ACL_ERROR_REPEAT_INITIALIZE);

    /* COPY-KIND-BUF: the staging kind from device memory. */
    void *a = NULL;
    void *b = NULL;
    aclrtRunMode mode = ACL_HOST;
    (void)aclrtGetRunMode(&mode);
    if (aclrtMalloc(&a, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS &&
        aclrtMalloc(&b, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS) {
        ROW("COPY-KIND-BUF", aclrtMemcpyAsync(b, 64, a, 64, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, NULL),
            mode == ACL_HOST ? ACL_ERROR_RT_PARAM_INVALID : ACL_SUCCESS);
        (void)aclrtSynchronizeStream(NULL);
    }
    (void)aclrtFree(a);
    (void)aclrtFree(b);

    /* CB-SUB-CTX: a stream of another context is subscribed. */
    aclrtStream s0 = NULL;
    aclrtContext other = NULL;
    uint64_t tid = my_tid();
    if (aclrtCreateStream(&s0) == ACL_SUCCESS && aclrtCreateContext(&other, 0) == ACL_SUCCESS) {
        ROW("CB-SUB-CTX", aclrtSubscribeReport(tid, s0), ACL_SUCCESS);
        ROW("CB-SUB-CTX", aclrtUnSubscribeReport(tid, s0), ACL_SUCCESS);
    } else {
        skip("CB-SUB-CTX", "setup failed");
    }
    if (other != NULL) {
        (void)aclrtDestroyContext(other);
    }
    (void)aclrtSetCurrentContext(dflt);
    if (s0 != NULL) {
        (void)aclrtDestroyStream(s0);
    }

    /* THREAD-RESET: the last reset of any device drops the binding. */
    uint32_t count = 0;
    (void)aclrtGetDeviceCount(&count);
    if (count < 2) {
        skip("THREAD-RESET", "one device");
        return;
    }
    (void)aclrtSetDevice(1);
    ROW("THREAD-RESET", aclrtResetDevice(0), ACL_SUCCESS);
    ROW("THREAD-RESET", aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
    (void)aclrtResetDevice(1);
    (void)aclrtSetDevice(0);
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "fidelity: aclInit/aclrtSetDevice(0) failed\n");
        return 2;
    }
    const char *soc = aclrtGetSocName();
    printf("fidelity on %s\n", soc != NULL ? soc : "(unknown chip)");
    callbacks();
    streams();
    events();
    copies();
    contexts();
    layers();
    devices();
    thread_binding();
    (void)aclrtResetDevice(0);
    (void)aclFinalize();
    printf("fidelity: %d agree, %d differ, %d skipped\n", agreed, differed, skipped);
    return differed == 0 ? 0 : 1;
}
