/*
 * Exception callbacks: a task that fails on a stream (here a notify wait
 * that times out after one second) calls the registered callback on a
 * runtime thread with the failure's device, stream, task and error code,
 * read through the aclrtGet*FromExceptionInfo getters.
 */
#include <stdatomic.h>

#include "common.h"

static atomic_int calls;
static atomic_uint device_id = 99, error_code, task_id;

static void on_exception(aclrtExceptionInfo *info)
{
    atomic_store(&device_id, aclrtGetDeviceIdFromExceptionInfo(info));
    atomic_store(&error_code, aclrtGetErrorCodeFromExceptionInfo(info));
    atomic_store(&task_id, aclrtGetTaskIdFromExceptionInfo(info));
    (void)aclrtGetStreamIdFromExceptionInfo(info);
    (void)aclrtGetThreadIdFromExceptionInfo(info);
    atomic_fetch_add(&calls, 1);
}

int main(void)
{
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    CHECK_ACL(aclrtSetExceptionInfoCallback(on_exception));
    aclrtStream s = NULL;
    CHECK_ACL(aclrtCreateStream(&s));
    aclrtNotify never = NULL;
    CHECK_ACL(aclrtCreateNotify(&never, 0));
    CHECK_ACL(aclrtWaitAndResetNotify(never, s, 1));
    aclError ret = aclrtSynchronizeStream(s);
    if (ret != ACL_ERROR_RT_TASK_TIMEOUT) {
        fprintf(stderr, "synchronize returned %d\n", ret);
        return 1;
    }
    if (atomic_load(&calls) != 1 || atomic_load(&device_id) != 0 ||
        atomic_load(&error_code) != (unsigned)ACL_ERROR_RT_TASK_TIMEOUT ||
        atomic_load(&task_id) == 0) {
        fprintf(stderr, "calls %d, device %u, code %u, task %u\n", atomic_load(&calls),
                atomic_load(&device_id), atomic_load(&error_code), atomic_load(&task_id));
        return 1;
    }
    if (aclrtGetTaskIdFromExceptionInfo(NULL) != 0xFFFFFFFFu) {
        return 1;
    }
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    CHECK_ACL(aclrtSetExceptionInfoCallback(NULL));
    CHECK_ACL(aclrtDestroyNotify(never));
    CHECK_ACL(aclrtDestroyStream(s));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("exception_callback: ok\n");
    return 0;
}
