/*
 * aclrt project header: base types and ACL-layer error codes of the AscendCL
 * runtime C API.
 *
 * Written for the aclrt project from the published facts about the API
 * (names, prototypes, constant values); see shared/acl-facts.md. It contains
 * no text of the vendor headers. Licence: MIT OR Apache-2.0.
 */
#ifndef ACLRT_PROJECT_ACL_BASE_H
#define ACLRT_PROJECT_ACL_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ACL_FUNC_VISIBILITY
#endif

/* Every API function returns an aclError; 0 means success. */
typedef int aclError;

/* Opaque runtime handles. */
typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef void *aclrtNotify;
typedef void *aclrtLabel;
typedef void *aclrtMbuf;
typedef void *aclrtBinHandle;
typedef void *aclrtFuncHandle;
typedef void *aclrtArgsHandle;
typedef void *aclrtParamHandle;
typedef void *aclrtBinary;
typedef void *aclrtDrvMemHandle;

typedef uint16_t aclFloat16;

/* ACL-layer error codes (plain constants, as in the real API). */
static const int ACL_SUCCESS = 0;
static const int ACL_ERROR_NONE = 0;
static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_INVALID_FILE = 100003;
static const int ACL_ERROR_REPEAT_SUBSCRIBE = 100033;
static const int ACL_ERROR_STREAM_NOT_SUBSCRIBE = 100034;
static const int ACL_ERROR_THREAD_NOT_SUBSCRIBE = 100035;
static const int ACL_ERROR_WAIT_CALLBACK_TIMEOUT = 100036;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;
static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;
static const int ACL_ERROR_STORAGE_OVER_LIMIT = 300000;
static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_GE_FAILURE = 500002;
static const int ACL_ERROR_RT_FAILURE = 500003;
static const int ACL_ERROR_DRV_FAILURE = 500004;
static const int ACL_ERROR_PROFILING_FAILURE = 500005;

/* Returns the text of the calling thread's most recent failure and clears
 * it; NULL when there is none. Only the latest returned pointer is valid. */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

/* Name of the SoC of device 0, or NULL on failure. */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLRT_PROJECT_ACL_BASE_H */
