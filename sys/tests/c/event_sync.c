/*
 * (b) Event synchronisation: record an event after asynchronous work and
 * block the host on the event only, as in the "event synchronisation"
 * section of the AscendCL guides.
 */
#include <string.h>

#include "acl/acl.h"
#include "common.h"

#define SIZE (1 << 20)

int main(void)
{
    aclrtStream stream = NULL;
    aclrtEvent event = NULL;
    void *host = NULL, *dev = NULL;
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclrtCreateEvent(&event));
    CHECK_ACL(aclrtMallocHost(&host, SIZE));
    CHECK_ACL(aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));

    memset(host, 0, SIZE);
    CHECK_ACL(aclrtMemsetAsync(dev, SIZE, 0x5a, SIZE, stream));
    CHECK_ACL(aclrtMemcpyAsync(host, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    CHECK_ACL(aclrtRecordEvent(event, stream));
    CHECK_ACL(aclrtSynchronizeEvent(event));
    CHECK_ACL(aclrtQueryEventStatus(event, &status));

    int bad = status != ACL_EVENT_RECORDED_STATUS_COMPLETE;
    if (bad) {
        fprintf(stderr, "event status %d after synchronize\n", (int)status);
    }
    const unsigned char *bytes = (const unsigned char *)host;
    for (size_t i = 0; i < SIZE && !bad; ++i) {
        if (bytes[i] != 0x5a) {
            fprintf(stderr, "byte %zu = 0x%02x\n", i, bytes[i]);
            bad = 1;
        }
    }

    CHECK_ACL(aclrtFree(dev));
    CHECK_ACL(aclrtFreeHost(host));
    CHECK_ACL(aclrtDestroyEvent(event));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("event_sync: %s\n", bad ? "WRONG DATA" : "ok");
    return bad ? 2 : 0;
}
