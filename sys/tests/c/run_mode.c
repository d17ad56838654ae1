/*
 * (f) A run-mode-dependent transfer: on a host (ACL_HOST) data moves with
 * host-to-device and device-to-host copies; on the device's own CPU
 * (ACL_DEVICE) aclrtMallocHost returns device memory and the copies are
 * device-to-device.
 */
#include <string.h>

#include "acl/acl.h"
#include "common.h"

#define SIZE 8192

int main(void)
{
    aclrtRunMode runMode = ACL_HOST;
    void *host = NULL, *back = NULL, *dev = NULL;

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtGetRunMode(&runMode));
    const int onDevice = runMode == ACL_DEVICE;
    const aclrtMemcpyKind toDevice = onDevice ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_HOST_TO_DEVICE;
    const aclrtMemcpyKind toHost = onDevice ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_HOST;
    printf("run mode: %s\n", onDevice ? "ACL_DEVICE" : "ACL_HOST");

    CHECK_ACL(aclrtMallocHost(&host, SIZE));
    CHECK_ACL(aclrtMallocHost(&back, SIZE));
    CHECK_ACL(aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));

    unsigned char *in = (unsigned char *)host;
    for (size_t i = 0; i < SIZE; ++i) {
        in[i] = (unsigned char)(255u - (i & 0xffu));
    }
    memset(back, 0, SIZE);
    CHECK_ACL(aclrtMemcpy(dev, SIZE, host, SIZE, toDevice));
    CHECK_ACL(aclrtMemcpy(back, SIZE, dev, SIZE, toHost));

    int bad = memcmp(host, back, SIZE) != 0;

    CHECK_ACL(aclrtFree(dev));
    CHECK_ACL(aclrtFreeHost(host));
    CHECK_ACL(aclrtFreeHost(back));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("run_mode: %s\n", bad ? "WRONG DATA" : "ok");
    return bad ? 2 : 0;
}
