/*
 * (c) Stream synchronisation: queue several tasks on one stream and wait for
 * the stream; tasks of one stream run in order.
 */
#include <string.h>

#include "acl/acl.h"
#include "common.h"

#define SIZE 65536

int main(void)
{
    aclrtStream stream = NULL;
    void *host = NULL, *devA = NULL, *devB = NULL;
    aclrtStreamStatus status = ACL_STREAM_STATUS_NOT_READY;

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclrtMallocHost(&host, SIZE));
    CHECK_ACL(aclrtMalloc(&devA, SIZE, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK_ACL(aclrtMalloc(&devB, SIZE, ACL_MEM_MALLOC_NORMAL_ONLY));

    unsigned char *bytes = (unsigned char *)host;
    for (size_t i = 0; i < SIZE; ++i) {
        bytes[i] = (unsigned char)(i * 7u);
    }
    CHECK_ACL(aclrtMemcpyAsync(devA, SIZE, host, SIZE, ACL_MEMCPY_HOST_TO_DEVICE, stream));
    CHECK_ACL(aclrtMemcpyAsync(devB, SIZE, devA, SIZE, ACL_MEMCPY_DEVICE_TO_DEVICE, stream));
    CHECK_ACL(aclrtMemsetAsync(devA, SIZE, 0, SIZE, stream));
    CHECK_ACL(aclrtMemcpyAsync(host, SIZE, devB, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    CHECK_ACL(aclrtStreamQuery(stream, &status));

    int bad = status != ACL_STREAM_STATUS_COMPLETE;
    for (size_t i = 0; i < SIZE && !bad; ++i) {
        if (bytes[i] != (unsigned char)(i * 7u)) {
            fprintf(stderr, "byte %zu = %u\n", i, bytes[i]);
            bad = 1;
        }
    }

    CHECK_ACL(aclrtFree(devA));
    CHECK_ACL(aclrtFree(devB));
    CHECK_ACL(aclrtFreeHost(host));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("stream_sync: %s\n", bad ? "WRONG DATA" : "ok");
    return bad ? 2 : 0;
}
