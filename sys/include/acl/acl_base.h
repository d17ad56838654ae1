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

/* Element types of tensors and buffers (the real API's numbering: the gaps
 * are values it does not name). */
typedef enum {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_STRING = 13,
    ACL_COMPLEX64 = 16,
    ACL_COMPLEX128 = 17,
    ACL_BF16 = 27,
    ACL_INT4 = 29,
    ACL_UINT1 = 30,
    ACL_COMPLEX32 = 33,
    ACL_HIFLOAT8 = 34,
    ACL_FLOAT8_E5M2 = 35,
    ACL_FLOAT8_E4M3FN = 36,
    ACL_FLOAT8_E8M0 = 37,
    ACL_FLOAT6_E3M2 = 38,
    ACL_FLOAT6_E2M3 = 39,
    ACL_FLOAT4_E2M1 = 40,
    ACL_FLOAT4_E1M2 = 41
} aclDataType;

/* Memory layouts of tensors. */
typedef enum {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_NC1HWC0_C04 = 12,
    ACL_FORMAT_HWCN = 16,
    ACL_FORMAT_NDHWC = 27,
    ACL_FORMAT_FRACTAL_NZ = 29,
    ACL_FORMAT_NCDHW = 30,
    ACL_FORMAT_NDC1HWC0 = 32,
    ACL_FRACTAL_Z_3D = 33,
    ACL_FORMAT_NC = 35,
    ACL_FORMAT_NCL = 47,
    ACL_FORMAT_FRACTAL_NZ_C0_16 = 50,
    ACL_FORMAT_FRACTAL_NZ_C0_32 = 51,
    ACL_FORMAT_FRACTAL_NZ_C0_2 = 52,
    ACL_FORMAT_FRACTAL_NZ_C0_4 = 53,
    ACL_FORMAT_FRACTAL_NZ_C0_8 = 54
} aclFormat;

/* Severity of an application log record (aclAppLog). A record is written
 * when its level is at least the process's log level (environment variable
 * ASCEND_GLOBAL_LOG_LEVEL: 0 debug .. 3 error, 4 none; default 3). */
typedef enum {
    ACL_DEBUG = 0,
    ACL_INFO = 1,
    ACL_WARNING = 2,
    ACL_ERROR = 3
} aclLogLevel;

/* Where a buffer lives. */
typedef enum {
    ACL_MEMTYPE_DEVICE = 0,
    ACL_MEMTYPE_HOST = 1,
    ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT = 2
} aclMemType;

/* Half precision to single precision. Saturating convention of the real
 * runtime: the half infinities read as +-65536.0 and a half NaN as 98304.0. */
ACL_FUNC_VISIBILITY float aclFloat16ToFloat(aclFloat16 value);

/* Single precision to half precision, rounding to nearest (ties to even).
 * Saturating: values beyond the half range, infinities and NaN become
 * +-65504.0 (0x7BFF / 0xFBFF). */
ACL_FUNC_VISIBILITY aclFloat16 aclFloatToFloat16(float value);

/* Bytes of one element of dataType (0 for ACL_STRING and ACL_DT_UNDEFINED,
 * 1 for the sub-byte types; unknown values count 8 as in the real runtime). */
ACL_FUNC_VISIBILITY size_t aclDataTypeSize(aclDataType dataType);

/* Writes one application log record: printf-style fmt and arguments,
 * formatted into at most 1023 characters (longer text is cut and ends with
 * "...[truncated]"), prefixed with the thread id and func:file:line. Nothing
 * is written when func, file or fmt is NULL or the level is below the
 * process's log level. The simulator writes records to stderr, or to stdout
 * when ASCEND_SLOG_PRINT_TO_STDOUT=1. */
ACL_FUNC_VISIBILITY void aclAppLog(aclLogLevel logLevel, const char *func, const char *file,
                                   uint32_t line, const char *fmt, ...);

/* aclAppLog with the calling function, file and line filled in. */
#define ACL_APP_LOG(level, fmt, ...) \
    aclAppLog(level, __FUNCTION__, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

/* Returns the text of the calling thread's most recent failure and clears
 * it; NULL when there is none. Only the latest returned pointer is valid. */
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

/* Name of the SoC of device 0, or NULL on failure. */
ACL_FUNC_VISIBILITY const char *aclrtGetSocName(void);

#ifdef __cplusplus
}
#endif

#endif /* ACLRT_PROJECT_ACL_BASE_H */
