/*
 * Error handling with verbose information, as the AscendCL guides show it:
 * every failure is read three ways (the returned code, the thread's last
 * error code, the recent error message), and the device's error details
 * are asked for when a call fails.
 */
#include <stdio.h>
#include <string.h>

#include "common.h"

/* Reports a failure the way an application's error path does; returns the
 * code it was given. */
static aclError explain(const char *what, aclError code)
{
    aclError last = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
    const char *msg = aclGetRecentErrMsg();
    printf("%s: returned %d, last error %d, message %s\n", what, code, last,
           msg != NULL ? "present" : "absent");
    return code;
}

int main(void)
{
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));

    /* A runtime failure: an unknown device. The runtime stores it as the
     * thread's last error and leaves a message. */
    uint32_t count = 0;
    CHECK_ACL(aclrtGetDeviceCount(&count));
    aclrtDeviceStatus status = ACL_RT_DEVICE_STATUS_NORMAL;
    aclError ret = explain("query of a missing device",
                           aclrtQueryDeviceStatus((int32_t)count, &status));
    if (ret != ACL_ERROR_RT_INVALID_DEVICEID) {
        return 1;
    }
    if (aclrtGetLastError(ACL_RT_THREAD_LEVEL) != ACL_ERROR_RT_INVALID_DEVICEID) {
        return 1;
    }
    /* Taken: the next read is clean. */
    if (aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL) != ACL_SUCCESS) {
        return 1;
    }

    /* An argument the ACL layer refuses on its own: returned, not stored. */
    ret = explain("NULL output", aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, NULL));
    if (ret != ACL_ERROR_INVALID_PARAM || aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL) != ACL_SUCCESS) {
        return 1;
    }

    /* The device's verbose error information. Chips that keep none answer
     * "not supported"; the others describe the last device fault. */
    aclrtErrorInfo info;
    memset(&info, 0xff, sizeof info);
    ret = aclrtGetErrorVerbose(0, &info);
    if (ret == ACL_SUCCESS) {
        printf("error details: type %d, repairable %u, detail %u\n", (int)info.errorType,
               info.tryRepair, info.hasDetail);
        if (info.errorType != ACL_RT_NO_ERROR || info.tryRepair != 0 || info.hasDetail != 0) {
            return 1; /* nothing failed on the device */
        }
    } else if (ret == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        printf("error details: not supported on %s\n", aclrtGetSocName());
        (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    } else {
        explain("aclrtGetErrorVerbose", ret);
        return 1;
    }
    if (aclrtGetErrorVerbose((int32_t)count, &info) != ACL_ERROR_RT_INVALID_DEVICEID &&
        aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL) != ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        return 1;
    }
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);

    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("error_verbose: ok\n");
    return 0;
}
