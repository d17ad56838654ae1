/*
 * (d) Cross-stream ordering with an event: stream 1 produces data and records
 * an event, stream 2 waits on the event (aclrtStreamWaitEvent) before it
 * consumes the data. All streams are non-blocking toward each other, so
 * without the wait stream 2 could read stale data.
 */
#include <string.h>

#include "acl/acl.h"
#include "common.h"

#define SIZE (4 << 20)

int main(void)
{
    aclrtStream producer = NULL, consumer = NULL;
    aclrtEvent ready = NULL;
    void *hostIn = NULL, *hostOut = NULL, *devA = NULL, *devB = NULL;

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtCreateStream(&producer));
    CHECK_ACL(aclrtCreateStream(&consumer));
    CHECK_ACL(aclrtCreateEventWithFlag(&ready, ACL_EVENT_SYNC));
    CHECK_ACL(aclrtMallocHost(&hostIn, SIZE));
    CHECK_ACL(aclrtMallocHost(&hostOut, SIZE));
    CHECK_ACL(aclrtMalloc(&devA, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&devB, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));

    unsigned char *in = (unsigned char *)hostIn;
    for (size_t i = 0; i < SIZE; ++i) {
        in[i] = (unsigned char)(i ^ (i >> 8));
    }
    memset(hostOut, 0, SIZE);
    CHECK_ACL(aclrtMemset(devB, SIZE, 0, SIZE));

    CHECK_ACL(aclrtMemcpyAsync(devA, SIZE, hostIn, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, producer));
    CHECK_ACL(aclrtMemcpyAsync(devB, SIZE, devA, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, producer));
    CHECK_ACL(aclrtRecordEvent(ready, producer));

    CHECK_ACL(aclrtStreamWaitEvent(consumer, ready));
    CHECK_ACL(aclrtMemcpyAsync(hostOut, SIZE, devB, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, consumer));
    CHECK_ACL(aclrtResetEvent(ready, consumer));
    CHECK_ACL(aclrtSynchronizeStream(consumer));
    CHECK_ACL(aclrtSynchronizeStream(producer));

    int bad = memcmp(hostIn, hostOut, SIZE) != 0;

    CHECK_ACL(aclrtFree(devA));
    CHECK_ACL(aclrtFree(devB));
    CHECK_ACL(aclrtFreeHost(hostIn));
    CHECK_ACL(aclrtFreeHost(hostOut));
    CHECK_ACL(aclrtDestroyEvent(ready));
    CHECK_ACL(aclrtDestroyStream(producer));
    CHECK_ACL(aclrtDestroyStream(consumer));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("cross_stream: %s\n", bad ? "WRONG DATA" : "ok");
    return bad ? 2 : 0;
}
