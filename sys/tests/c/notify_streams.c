/*
 * Two streams ordered by a notify: the second stream waits for the notify
 * before it copies a buffer the first stream fills later (after a slow host
 * function), so the copy must see the filled bytes. The wait is issued
 * before the record, which an event could not order.
 */
#define _POSIX_C_SOURCE 199309L
#include <string.h>
#include <time.h>

#include "common.h"

#define N 4096

static void slow(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

int main(void)
{
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtStream producer = NULL, consumer = NULL;
    CHECK_ACL(aclrtCreateStream(&producer));
    CHECK_ACL(aclrtCreateStream(&consumer));
    aclrtNotify ready = NULL;
    CHECK_ACL(aclrtCreateNotify(&ready, 0));
    uint32_t id = 0;
    CHECK_ACL(aclrtGetNotifyId(ready, &id));
    void *a = NULL, *b = NULL;
    CHECK_ACL(aclrtMalloc(&a, N, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&b, N, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMemset(a, N, 0, N));

    /* The consumer: wait (no time limit), then copy a into b. */
    CHECK_ACL(aclrtWaitAndResetNotify(ready, consumer, 0));
    CHECK_ACL(aclrtMemcpyAsync(b, N, a, N, ACL_MEMCPY_DEVICE_TO_DEVICE, consumer));
    /* The producer: slow work, fill a, then record. */
    CHECK_ACL(aclrtLaunchHostFunc(producer, slow, NULL));
    CHECK_ACL(aclrtMemsetAsync(a, N, 0x5A, N, producer));
    CHECK_ACL(aclrtRecordNotify(ready, producer));

    CHECK_ACL(aclrtSynchronizeStream(consumer));
    static unsigned char host[N];
    CHECK_ACL(aclrtMemcpy(host, N, b, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; ++i) {
        if (host[i] != 0x5A) {
            fprintf(stderr, "byte %d is %#x: the copy ran before the notify\n", i, host[i]);
            return 1;
        }
    }
    /* A destroyed notify is a stale handle. */
    CHECK_ACL(aclrtSynchronizeStream(producer));
    CHECK_ACL(aclrtDestroyNotify(ready));
    if (aclrtRecordNotify(ready, producer) != ACL_ERROR_RT_INVALID_HANDLE) {
        fprintf(stderr, "a destroyed notify was recorded\n");
        return 1;
    }
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    CHECK_ACL(aclrtFree(a));
    CHECK_ACL(aclrtFree(b));
    CHECK_ACL(aclrtDestroyStream(producer));
    CHECK_ACL(aclrtDestroyStream(consumer));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("notify_streams: ok (notify %u)\n", id);
    return 0;
}
