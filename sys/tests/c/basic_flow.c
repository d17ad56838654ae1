/*
 * (a) The basic flow of the AscendCL guides: init, set device, create a
 * context and a stream, allocate host and device memory, copy to the device,
 * compute, copy back, check, release everything in order, finalize.
 *
 * The "kernel" here is a vector addition run by a host function queued on
 * the stream after the device-to-host copies (the simulator has no AI Core).
 */
#include <stdint.h>
#include <string.h>

#include "acl/acl.h"
#include "common.h"

#define N 4096

struct add_args {
    const int32_t *a;
    const int32_t *b;
    int32_t *c;
    size_t n;
};

static void add_vectors(void *arg)
{
    struct add_args *args = (struct add_args *)arg;
    for (size_t i = 0; i < args->n; ++i) {
        args->c[i] = args->a[i] + args->b[i];
    }
}

int main(void)
{
    const int32_t deviceId = 0;
    aclrtContext context = NULL;
    aclrtStream stream = NULL;
    const size_t size = N * sizeof(int32_t);
    void *hostA = NULL, *hostB = NULL, *hostC = NULL;
    void *devA = NULL, *devB = NULL;

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(deviceId));
    CHECK_ACL(aclrtCreateContext(&context, deviceId));
    CHECK_ACL(aclrtCreateStream(&stream));

    CHECK_ACL(aclrtMallocHost(&hostA, size));
    CHECK_ACL(aclrtMallocHost(&hostB, size));
    CHECK_ACL(aclrtMallocHost(&hostC, size));
    CHECK_ACL(aclrtMalloc(&devA, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc(&devB, size, ACL_MEM_MALLOC_HUGE_FIRST));

    /* Pinned host memory must be initialised before use. */
    int32_t *a = (int32_t *)hostA;
    int32_t *b = (int32_t *)hostB;
    for (int32_t i = 0; i < N; ++i) {
        a[i] = i;
        b[i] = 3 * i + 1;
    }
    memset(hostC, 0, size);

    /* Host to device, synchronously. */
    CHECK_ACL(aclrtMemcpy(devA, size, hostA, size, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ACL(aclrtMemcpy(devB, size, hostB, size, ACL_MEMCPY_HOST_TO_DEVICE));

    /* Wipe the host copies so that only the device holds the inputs. */
    memset(hostA, 0, size);
    memset(hostB, 0, size);

    /* Device to host on the stream, then compute in stream order. */
    CHECK_ACL(aclrtMemcpyAsync(hostA, size, devA, size, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    CHECK_ACL(aclrtMemcpyAsync(hostB, size, devB, size, ACL_MEMCPY_DEVICE_TO_HOST, stream));
    struct add_args args = { a, b, (int32_t *)hostC, N };
    CHECK_ACL(aclrtLaunchHostFunc(stream, add_vectors, &args));
    CHECK_ACL(aclrtSynchronizeStream(stream));

    const int32_t *c = (const int32_t *)hostC;
    int bad = 0;
    for (int32_t i = 0; i < N; ++i) {
        if (c[i] != 4 * i + 1) {
            fprintf(stderr, "c[%d] = %d, expected %d\n", i, c[i], 4 * i + 1);
            bad = 1;
            break;
        }
    }
    const int32_t last = c[N - 1];

    CHECK_ACL(aclrtFree(devA));
    CHECK_ACL(aclrtFree(devB));
    CHECK_ACL(aclrtFreeHost(hostA));
    CHECK_ACL(aclrtFreeHost(hostB));
    CHECK_ACL(aclrtFreeHost(hostC));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtDestroyContext(context));
    CHECK_ACL(aclrtResetDevice(deviceId));
    CHECK_ACL(aclFinalize());

    if (bad) {
        printf("basic_flow: WRONG DATA\n");
        return 2;
    }
    printf("basic_flow: ok (c[%d] = %d)\n", N - 1, last);
    return 0;
}
