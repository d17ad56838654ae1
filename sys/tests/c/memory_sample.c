/*
 * The memory flow of the vendor's C samples: the device's default context
 * (no aclrtCreateContext), a stream, host memory chosen by the run mode
 * (pinned host memory on a host, device memory when the program runs on
 * the device), copies both ways, the memory figures of every aclrtMemAttr,
 * logging through ACL_APP_LOG.
 *
 *   memory_sample tidy    every resource released in order
 *   memory_sample sloppy  as the samples do: the stream is never
 *                         destroyed (aclrtResetDevice releases the
 *                         default context with it; the hardware answers
 *                         success)
 */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "common.h"

#define SIZE (1u << 20)

int main(int argc, char **argv)
{
    const int sloppy = argc > 1 && strcmp(argv[1], "sloppy") == 0;
    aclrtStream stream = NULL;
    aclrtRunMode mode = ACL_HOST;
    void *host = NULL, *dev = NULL, *back = NULL;

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclrtGetRunMode(&mode));
    ACL_APP_LOG(ACL_INFO, "run mode %d, soc %s", (int)mode, aclrtGetSocName());

    /* The samples' choice: pinned host memory unless on the device. */
    if (mode == ACL_HOST) {
        CHECK_ACL(aclrtMallocHost(&host, SIZE));
        CHECK_ACL(aclrtMallocHost(&back, SIZE));
    } else {
        CHECK_ACL(aclrtMalloc(&host, SIZE, ACL_MEM_MALLOC_NORMAL_ONLY));
        CHECK_ACL(aclrtMalloc(&back, SIZE, ACL_MEM_MALLOC_NORMAL_ONLY));
    }
    CHECK_ACL(aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
    for (uint32_t i = 0; i < SIZE; ++i) {
        ((unsigned char *)host)[i] = (unsigned char)(i * 7u + 3u);
    }
    memset(back, 0, SIZE);
    aclrtMemcpyKind in = mode == ACL_HOST ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_DEVICE;
    aclrtMemcpyKind out = mode == ACL_HOST ? ACL_MEMCPY_DEVICE_TO_HOST : ACL_MEMCPY_DEVICE_TO_DEVICE;
    CHECK_ACL(aclrtMemcpy(dev, SIZE, host, SIZE, in));
    CHECK_ACL(aclrtMemcpyAsync(back, SIZE, dev, SIZE, out, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    if (memcmp(host, back, SIZE) != 0) {
        ACL_APP_LOG(ACL_ERROR, "copied bytes differ");
        fprintf(stderr, "copied bytes differ\n");
        return 1;
    }

    /* Every memory attribute: a 910B has HBM only, a 310P DDR only. */
    const int hbm = strncmp(aclrtGetSocName(), "Ascend910B", 10) == 0;
    int reported = 0;
    for (int attr = ACL_DDR_MEM; attr <= ACL_MEM_P2P_HUGE1G; ++attr) {
        size_t free_bytes = 0, total = 0;
        CHECK_ACL(aclrtGetMemInfo((aclrtMemAttr)attr, &free_bytes, &total));
        if (free_bytes > total) {
            fprintf(stderr, "attr %d: free %zu > total %zu\n", attr, free_bytes, total);
            return 1;
        }
        reported += total != 0;
    }
    size_t f = 0, t = 0;
    CHECK_ACL(aclrtGetMemInfo(hbm ? ACL_HBM_MEM : ACL_DDR_MEM, &f, &t));
    ACL_APP_LOG(ACL_INFO, "device memory %zu of %zu bytes free", f, t);
    printf("memory: %zu GiB, %d of 18 attributes report it\n", t >> 30, reported);

    CHECK_ACL(aclrtFree(dev));
    if (mode == ACL_HOST) {
        CHECK_ACL(aclrtFreeHost(host));
        CHECK_ACL(aclrtFreeHost(back));
    } else {
        CHECK_ACL(aclrtFree(host));
        CHECK_ACL(aclrtFree(back));
    }
    if (!sloppy) {
        CHECK_ACL(aclrtDestroyStream(stream));
    }
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("memory_sample(%s): ok\n", sloppy ? "sloppy" : "tidy");
    return 0;
}
