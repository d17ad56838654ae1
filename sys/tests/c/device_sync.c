/*
 * (e) Device synchronisation: work on several streams of the current
 * context, one aclrtSynchronizeDevice for all of it.
 */
#include <string.h>

#include "acl/acl.h"
#include "common.h"

#define STREAMS 4
#define SIZE 262144

int main(void)
{
    aclrtStream streams[STREAMS] = { NULL };
    void *dev[STREAMS] = { NULL };
    void *host[STREAMS] = { NULL };

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    for (int i = 0; i < STREAMS; ++i) {
        CHECK_ACL(aclrtCreateStream(&streams[i]));
        CHECK_ACL(aclrtMalloc(&dev[i], SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_ACL(aclrtMallocHost(&host[i], SIZE));
        memset(host[i], 0xff, SIZE);
    }
    for (int i = 0; i < STREAMS; ++i) {
        CHECK_ACL(aclrtMemsetAsync(dev[i], SIZE, 0x10 + i, SIZE, streams[i]));
        CHECK_ACL(aclrtMemcpyAsync(host[i], SIZE, dev[i], SIZE, ACL_MEMCPY_DEVICE_TO_HOST,
                                   streams[i]));
    }
    CHECK_ACL(aclrtSynchronizeDevice());

    int bad = 0;
    for (int i = 0; i < STREAMS && !bad; ++i) {
        const unsigned char *b = (const unsigned char *)host[i];
        for (size_t j = 0; j < SIZE; ++j) {
            if (b[j] != 0x10 + i) {
                fprintf(stderr, "stream %d byte %zu = 0x%02x\n", i, j, b[j]);
                bad = 1;
                break;
            }
        }
    }

    for (int i = 0; i < STREAMS; ++i) {
        CHECK_ACL(aclrtFree(dev[i]));
        CHECK_ACL(aclrtFreeHost(host[i]));
        CHECK_ACL(aclrtDestroyStream(streams[i]));
    }
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("device_sync: %s\n", bad ? "WRONG DATA" : "ok");
    return bad ? 2 : 0;
}
