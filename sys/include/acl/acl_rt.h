/*
 * aclrt project header: the runtime part of the AscendCL C API (devices,
 * contexts, streams, events, notifies, memory and virtual memory, copies,
 * callbacks, kernels, model runtime instances, versions): every function,
 * type and constant of the public runtime header.
 *
 * Written for the aclrt project from the published facts about the API
 * (names, prototypes, constant values and layouts; see shared/acl-facts.md).
 * It contains no text of the vendor headers, whose licence forbids use off
 * Huawei processors. Licence: MIT OR Apache-2.0.
 */
#ifndef ACLRT_PROJECT_ACL_RT_H
#define ACLRT_PROJECT_ACL_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"
#include "acl_rt_allocator.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAJOR_VERSION 1
#define ACL_MINOR_VERSION 17
#define ACL_PATCH_VERSION 0

#define ACL_PKG_VERSION_MAX_SIZE 128
#define ACL_PKG_VERSION_PARTS_MAX_SIZE 64

/* ---- event creation flags (bit mask) ---------------------------------- */
#define ACL_EVENT_SYNC 0x00000001u
#define ACL_EVENT_CAPTURE_STREAM_PROGRESS 0x00000002u
#define ACL_EVENT_TIME_LINE 0x00000008u
#define ACL_EVENT_DEVICE_USE_ONLY 0x00000010u
#define ACL_EVENT_EXTERNAL 0x00000020u
#define ACL_EVENT_IPC 0x00000040u

/* Flags of aclrtRecordEventWithFlag and aclrtStreamWaitEventWithFlag. */
#define ACL_EVENT_RECORD_DEFAULT 0x00000000u
#define ACL_EVENT_RECORD_EXTERNAL 0x00000001u
#define ACL_EVENT_WAIT_DEFAULT 0x00000000u
#define ACL_EVENT_WAIT_EXTERNAL 0x00000001u

/* Size of an exported event handle. */
#define ACL_IPC_EVENT_HANDLE_SIZE 64u

/* ---- stream creation flags (bit mask) --------------------------------- */
#define ACL_STREAM_FAST_LAUNCH 0x00000001u
#define ACL_STREAM_FAST_SYNC 0x00000002u
#define ACL_STREAM_PERSISTENT 0x00000004u
#define ACL_STREAM_HUGE 0x00000008u
#define ACL_STREAM_CPU_SCHEDULE 0x00000010u
#define ACL_STREAM_DEVICE_USE_ONLY 0x00000020u

/* Comparisons of aclrtValueWait. */
#define ACL_STREAM_WAIT_VALUE_GEQ 0x00000000u
#define ACL_STREAM_WAIT_VALUE_EQ 0x00000001u
#define ACL_STREAM_WAIT_VALUE_AND 0x00000002u
#define ACL_STREAM_WAIT_VALUE_NOR 0x00000003u

/* ---- stream failure modes (aclrtSetStreamFailureMode; mode is uint64_t) - */
#define ACL_CONTINUE_ON_FAILURE 0x0U
#define ACL_STOP_ON_FAILURE 0x1U

/* ---- notifies ---------------------------------------------------------- */
#define ACL_NOTIFY_DEFAULT 0x00000000u
#define ACL_NOTIFY_DEVICE_USE_ONLY 0x00000001u
#define ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x02UL
#define ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x02UL

/* ---- answers of aclrtGetDeviceCapability -------------------------------- */
#define ACL_DEV_FEATURE_SUPPORT 0x00000001
#define ACL_DEV_FEATURE_NOT_SUPPORT 0x00000000

/* Values of ACL_DEV_ATTR_DEVICE_FORM_FACTOR. */
#define ACL_DEVICE_FORM_FACTOR_POD 0
#define ACL_DEVICE_FORM_FACTOR_A_K 1
#define ACL_DEVICE_FORM_FACTOR_A_X 2
#define ACL_DEVICE_FORM_FACTOR_PCIE_CARD 3

/* Values of ACL_DEV_ATTR_HD_CONNECT_TYPE. */
#define ACL_HOST_DEVICE_CONNECT_TYPE_PCIE 0
#define ACL_HOST_DEVICE_CONNECT_TYPE_HCCS 1
#define ACL_HOST_DEVICE_CONNECT_TYPE_UB 2

/* Bits of the topology reported by aclrtGetDevicesTopo. */
#define ACL_RT_DEVS_TOPOLOGY_HCCS 0x01ULL
#define ACL_RT_DEVS_TOPOLOGY_PIX 0x02ULL
#define ACL_RT_DEVS_TOPOLOGY_PIB 0x04ULL
#define ACL_RT_DEVS_TOPOLOGY_PHB 0x08ULL
#define ACL_RT_DEVS_TOPOLOGY_SYS 0x10ULL
#define ACL_RT_DEVS_TOPOLOGY_SIO 0x20ULL
#define ACL_RT_DEVS_TOPOLOGY_HCCS_SW 0x40ULL

/* ---- memory shared between processes ------------------------------------ */
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS 0x1UL
#define ACL_RT_VMM_EXPORT_FLAG_DEFAULT 0x0UL
#define ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION 0x1UL

/* Links of ACL_RT_IPC_MEM_ATTR_ACCESS_LINK. */
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_SIO 0
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS 1
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_ONE_PORT_PATH 2
#define ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH 3

/* Link indexes of aclrtMemMapSelectedLink. */
#define ACL_RT_MEM_LINK_IDX_0 0U
#define ACL_RT_MEM_LINK_IDX_1 1U

/* ---- host registration flags of aclrtHostRegisterV2 -------------------- */
#define ACL_HOST_REG_MAPPED 0x2UL
#define ACL_HOST_REG_IOMEMORY 0x4UL
#define ACL_HOST_REG_READONLY 0x8UL
#define ACL_HOST_REG_PINNED 0x10000000UL

/* ---- managed memory attach flag (aclrtMemAllocManaged) ----------------- */
#define ACL_RT_MEM_ATTACH_GLOBAL 0x01U

/* Memory kinds tested by aclrtCheckMemType (bit mask). */
#define ACL_RT_MEM_TYPE_DEV 0x2U
#define ACL_RT_MEM_TYPE_DVPP 0x8U
#define ACL_RT_MEM_TYPE_RSVD 0x10U

/* Uncorrectable memory error records. */
#define ACL_RT_MAX_RECORD_PA_NUM_PER_DEV 20U
#define MAX_MEM_UCE_INFO_ARRAY_SIZE 128
#define UCE_INFO_RESERVED_SIZE 14
#define ACL_RT_MEM_UCE_INFO_MAX_NUM 20

/* Most barriers one cache maintenance wait names. */
#define ACL_RT_CMO_MAX_BARRIER_NUM 6U

/* Output forms of aclmdlRIDebugJsonPrint. */
#define ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY 0x0UL
#define ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE 0x1UL

/* ---- kernel loading and launch: magic numbers of device binaries ------- */
#define ACL_RT_BINARY_MAGIC_ELF_AICORE 0x43554245U
#define ACL_RT_BINARY_MAGIC_ELF_VECTOR_CORE 0x41415246U
#define ACL_RT_BINARY_MAGIC_ELF_CUBE_CORE 0x41494343U


/* ======================================================================
 * Types
 * ==================================================================== */

/* Where the application runs: on the device's own CPU, or on a host. */
typedef enum aclrtRunMode {
    ACL_DEVICE = 0,
    ACL_HOST = 1
} aclrtRunMode;

/* Task scheduler kind. */
typedef enum aclrtTsId {
    ACL_TS_ID_AICORE = 0,
    ACL_TS_ID_AIVECTOR = 1,
    ACL_TS_ID_RESERVED = 2
} aclrtTsId;

/* Status reported by the deprecated aclrtQueryEvent. */
typedef enum aclrtEventStatus {
    ACL_EVENT_STATUS_COMPLETE = 0,
    ACL_EVENT_STATUS_NOT_READY = 1,
    ACL_EVENT_STATUS_RESERVED = 2
} aclrtEventStatus;

/* Status reported by aclrtQueryEventStatus (note: NOT_READY is 0 here). */
typedef enum aclrtEventRecordedStatus {
    ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
    ACL_EVENT_RECORDED_STATUS_COMPLETE = 1
} aclrtEventRecordedStatus;

/* Status reported by aclrtQueryEventWaitStatus. */
typedef enum aclrtEventWaitStatus {
    ACL_EVENT_WAIT_STATUS_COMPLETE = 0,
    ACL_EVENT_WAIT_STATUS_NOT_READY = 1,
    ACL_EVENT_WAIT_STATUS_RESERVED = 0xFFFF
} aclrtEventWaitStatus;

/* Status reported by aclrtStreamQuery. */
typedef enum aclrtStreamStatus {
    ACL_STREAM_STATUS_COMPLETE = 0,
    ACL_STREAM_STATUS_NOT_READY = 1,
    ACL_STREAM_STATUS_RESERVED = 0xFFFF
} aclrtStreamStatus;

/* Whether a callback launched with aclrtLaunchCallback holds the stream. */
typedef enum aclrtCallbackBlockType {
    ACL_CALLBACK_NO_BLOCK = 0,
    ACL_CALLBACK_BLOCK = 1
} aclrtCallbackBlockType;

/* Direction of a memory copy. */
typedef enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4,
    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE = 5,
    ACL_MEMCPY_INNER_DEVICE_TO_DEVICE = 6,
    ACL_MEMCPY_INTER_DEVICE_TO_DEVICE = 7
} aclrtMemcpyKind;

/* Advice kinds of aclrtMemManagedAdvise. */
typedef enum aclrtMemManagedAdviseType {
    ACL_MEM_ADVISE_SET_READ_MOSTLY = 0,
    ACL_MEM_ADVISE_UNSET_READ_MOSTLY = 1,
    ACL_MEM_ADVISE_SET_PREFERRED_LOCATION = 2,
    ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION = 3,
    ACL_MEM_ADVISE_SET_ACCESSED_BY = 4,
    ACL_MEM_ADVISE_UNSET_ACCESSED_BY = 5
} aclrtMemManagedAdviseType;

typedef enum aclrtMemManagedLocationType {
    ACL_MEM_LOCATIONTYPE_INVALID = 0,
    ACL_MEM_LOCATIONTYPE_DEVICE = 1,
    ACL_MEM_LOCATIONTYPE_HOST = 2,
    ACL_MEM_LOCATIONTYPE_HOST_NUMA = 3,
    ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT = 4
} aclrtMemManagedLocationType;

/* A place managed memory can live (device id or host NUMA node). */
typedef struct aclrtMemManagedLocation {
    aclrtMemManagedLocationType type;
    int32_t id;
} aclrtMemManagedLocation;

/* Page policy of a device allocation. */
typedef enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
    ACL_MEM_MALLOC_HUGE_FIRST_P2P = 3,
    ACL_MEM_MALLOC_HUGE_ONLY_P2P = 4,
    ACL_MEM_MALLOC_NORMAL_ONLY_P2P = 5,
    ACL_MEM_MALLOC_HUGE1G_ONLY = 6,
    ACL_MEM_MALLOC_HUGE1G_ONLY_P2P = 7,
    ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x0100,
    ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000,
    ACL_MEM_ACCESS_USER_SPACE_READONLY = 0x100000
} aclrtMemMallocPolicy;

/* Registration type of aclrtHostRegister. Only MAPPED is usable; the others
 * are reserved. (MAPPED is 0 here but 0x2 among the V2 flags.) */
typedef enum aclrtHostRegisterType {
    ACL_HOST_REGISTER_MAPPED = 0,
    ACL_HOST_REGISTER_IOMEMORY = 0x04,
    ACL_HOST_REGISTER_READONLY = 0x08
} aclrtHostRegisterType;

/* Attributes of aclrtMallocWithCfg / aclrtMallocHostWithCfg. */
typedef enum aclrtMallocAttrType {
    ACL_RT_MEM_ATTR_RSV = 0,
    ACL_RT_MEM_ATTR_MODULE_ID = 1,
    ACL_RT_MEM_ATTR_DEVICE_ID = 2,
    ACL_RT_MEM_ATTR_VA_FLAG = 3
} aclrtMallocAttrType;

typedef union aclrtMallocAttrValue {
    uint16_t moduleId;
    uint32_t deviceId;
    uint32_t vaFlag;
    uint8_t rsv[8];
} aclrtMallocAttrValue;

typedef struct aclrtMallocAttribute {
    aclrtMallocAttrType attr;
    aclrtMallocAttrValue value;
} aclrtMallocAttribute;

/* Attribute list of a configured allocation. */
typedef struct aclrtMallocConfig {
    aclrtMallocAttribute *attrs;
    size_t numAttrs;
} aclrtMallocConfig;

/* Processes of one server allowed to import a key (cross-server sharing). */
typedef struct aclrtServerPid {
    uint32_t sdid;
    int32_t *pid;
    size_t num;
} aclrtServerPid;

/* Memory kind queried by aclrtGetMemInfo. */
typedef enum aclrtMemAttr {
    ACL_DDR_MEM = 0,
    ACL_HBM_MEM = 1,
    ACL_DDR_MEM_HUGE = 2,
    ACL_DDR_MEM_NORMAL = 3,
    ACL_HBM_MEM_HUGE = 4,
    ACL_HBM_MEM_NORMAL = 5,
    ACL_DDR_MEM_P2P_HUGE = 6,
    ACL_DDR_MEM_P2P_NORMAL = 7,
    ACL_HBM_MEM_P2P_HUGE = 8,
    ACL_HBM_MEM_P2P_NORMAL = 9,
    ACL_HBM_MEM_HUGE1G = 10,
    ACL_HBM_MEM_P2P_HUGE1G = 11,
    ACL_MEM_NORMAL = 12,
    ACL_MEM_HUGE = 13,
    ACL_MEM_HUGE1G = 14,
    ACL_MEM_P2P_NORMAL = 15,
    ACL_MEM_P2P_HUGE = 16,
    ACL_MEM_P2P_HUGE1G = 17
} aclrtMemAttr;

/* Page and memory kinds (plain enums with unprefixed names, as in the real API). */
enum aclrtMemPgType {
    NORMAL_PAGE_TYPE = 0U,
    HUGE_PAGE_TYPE = 1,
    HUGE1G_PAGE_TYPE = 2
};

enum aclrtMemType {
    HBM_TYPE = 0U,
    DDR_TYPE = 1,
    P2P_HBM_TYPE = 2,
    P2P_DDR_TYPE = 3
};

/* Attribute kinds of aclrtIpcMemSetAttr. */
typedef enum aclrtIpcMemAttrType {
    ACL_RT_IPC_MEM_ATTR_ACCESS_LINK = 0
} aclrtIpcMemAttrType;

/* Fields of a compute group queried by aclrtGetGroupInfoDetail. */
typedef enum aclrtGroupAttr {
    ACL_GROUP_AICORE_INT = 0,
    ACL_GROUP_AIV_INT = 1,
    ACL_GROUP_AIC_INT = 2,
    ACL_GROUP_SDMANUM_INT = 3,
    ACL_GROUP_ASQNUM_INT = 4,
    ACL_GROUP_GROUPID_INT = 5
} aclrtGroupAttr;

/* Floating-point overflow behaviour of a device (saturate or produce inf/NaN). */
typedef enum aclrtFloatOverflowMode {
    ACL_RT_OVERFLOW_MODE_SATURATION = 0,
    ACL_RT_OVERFLOW_MODE_INFNAN = 1,
    ACL_RT_OVERFLOW_MODE_UNDEF = 2
} aclrtFloatOverflowMode;

/* Fields of a stream configuration handle (aclrtSetStreamConfigOpt). */
typedef enum aclrtStreamConfigAttr {
    ACL_RT_STREAM_WORK_ADDR_PTR = 0,
    ACL_RT_STREAM_WORK_SIZE = 1,
    ACL_RT_STREAM_FLAG = 2,
    ACL_RT_STREAM_PRIORITY = 3
} aclrtStreamConfigAttr;

/* Stream configuration filled by aclrtSetStreamConfigOpt and read by aclrtCreateStreamV2. */
typedef struct aclrtStreamConfigHandle {
    void *workptr;
    size_t workSize;
    size_t flag;
    uint32_t priority;
} aclrtStreamConfigHandle;

typedef struct aclrtUtilizationExtendInfo aclrtUtilizationExtendInfo;

/* Utilisation percentages of a device; utilizationExtend is reserved. */
typedef struct aclrtUtilizationInfo {
    int32_t cubeUtilization;
    int32_t vectorUtilization;
    int32_t aicpuUtilization;
    int32_t memoryUtilization;
    aclrtUtilizationExtendInfo *utilizationExtend;
} aclrtUtilizationInfo;

/* Opaque runtime records: compute-group information and exception reports. */
typedef struct tagRtGroupInfo aclrtGroupInfo;

typedef struct rtExceptionInfo aclrtExceptionInfo;

/* Where memory lives, as reported by aclrtPointerGetAttributes. */
typedef enum aclrtMemLocationType {
    ACL_MEM_LOCATION_TYPE_HOST = 0,
    ACL_MEM_LOCATION_TYPE_DEVICE = 1,
    ACL_MEM_LOCATION_TYPE_UNREGISTERED = 2,
    ACL_MEM_LOCATION_TYPE_MANAGED = 3,
    ACL_MEM_LOCATION_TYPE_HOST_NUMA = 4
} aclrtMemLocationType;

typedef struct aclrtMemLocation {
    uint32_t id;
    aclrtMemLocationType type;
} aclrtMemLocation;

/* What aclrtPointerGetAttributes reports about an address. */
typedef struct aclrtPtrAttributes {
    aclrtMemLocation location;
    uint32_t pageSize;
    uint32_t rsv[4];
} aclrtPtrAttributes;

/* Memory use of one component (aclrtGetMemUsageInfo). */
typedef struct aclrtMemUsageInfo {
    char name[32];
    uint64_t curMemSize;
    uint64_t memPeakSize;
    size_t reserved[8];
} aclrtMemUsageInfo;

/* Attributes of a managed range (aclrtMemManagedGetAttr). */
typedef enum aclrtMemManagedRangeAttribute {
    ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY = 1,
    ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION = 2,
    ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY = 3,
    ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE = 4,
    ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID = 5,
    ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION = 6,
    ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE = 7,
    ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID = 8
} aclrtMemManagedRangeAttribute;

/* Virtual memory: kinds of physical allocation, handle and share types. */
typedef enum aclrtMemAllocationType {
    ACL_MEM_ALLOCATION_TYPE_PINNED = 0
} aclrtMemAllocationType;

typedef enum aclrtMemHandleType {
    ACL_MEM_HANDLE_TYPE_NONE = 0,
    ACL_MEM_HANDLE_TYPE_POSIX = 2
} aclrtMemHandleType;

typedef enum aclrtMemSharedHandleType {
    ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT = 0x1,
    ACL_MEM_SHARE_HANDLE_TYPE_FABRIC = 0x2
} aclrtMemSharedHandleType;

typedef struct aclrtMemFabricHandle {
    uint8_t data[128];
} aclrtMemFabricHandle;

/* Properties of a physical allocation (aclrtMallocPhysical). */
typedef struct aclrtPhysicalMemProp {
    aclrtMemHandleType handleType;
    aclrtMemAllocationType allocationType;
    aclrtMemAttr memAttr;
    aclrtMemLocation location;
    uint64_t reserve;
} aclrtPhysicalMemProp;

/* Which granularity aclrtMemGetAllocationGranularity reports. */
typedef enum aclrtMemGranularityOptions {
    ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM = 0,
    ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED = 1,
    ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF = 0xFFFF
} aclrtMemGranularityOptions;

/* ---- callback types ---------------------------------------------------- */
typedef void (*aclrtCallback)(void *userData);

typedef void (*aclrtHostFunc)(void *args);

/* Callbacks of the exception reports. */
typedef void (*aclrtExceptionInfoCallback)(aclrtExceptionInfo *exceptionInfo);

typedef void (*aclrtOpExceptionCallback)(aclrtExceptionInfo *exceptionInfo, void *userData);

/* Health of a device (aclrtQueryDeviceStatus). */
typedef enum aclrtDeviceStatus {
    ACL_RT_DEVICE_STATUS_NORMAL = 0,
    ACL_RT_DEVICE_STATUS_ABNORMAL = 1,
    ACL_RT_DEVICE_STATUS_END = 0xFFFF
} aclrtDeviceStatus;

typedef void *aclmdlRI;

/* Model runtime instances built by capturing a stream. */
typedef enum aclmdlRICaptureMode {
    ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
    ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL = 1,
    ACL_MODEL_RI_CAPTURE_MODE_RELAXED = 2
} aclmdlRICaptureMode;

typedef enum aclmdlRICaptureStatus {
    ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
    ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE = 1,
    ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED = 2
} aclmdlRICaptureStatus;

/* One uncorrectable memory error region. */
typedef struct aclrtMemUceInfo {
    void *addr;
    size_t len;
    size_t reserved[UCE_INFO_RESERVED_SIZE];
} aclrtMemUceInfo;

/* Kind of a device error reported by aclrtGetErrorVerbose. */
typedef enum aclrtErrorType {
    ACL_RT_NO_ERROR = 0,
    ACL_RT_ERROR_MEMORY = 1,
    ACL_RT_ERROR_L2 = 2,
    ACL_RT_ERROR_AICORE = 3,
    ACL_RT_ERROR_LINK = 4,
    ACL_RT_ERROR_L3_PORT = 5,
    ACL_RT_ERROR_OTHERS = 0xFFFF
} aclrtErrorType;

typedef enum aclrtAicoreErrorType {
    ACL_RT_AICORE_ERROR_UNKNOWN = 0,
    ACL_RT_AICORE_ERROR_SW = 1,
    ACL_RT_AICORE_ERROR_HW_LOCAL = 2
} aclrtAicoreErrorType;

typedef struct aclrtMemUceInfoArray {
    size_t arraySize;
    aclrtMemUceInfo memUceInfoArray[ACL_RT_MEM_UCE_INFO_MAX_NUM];
} aclrtMemUceInfoArray;

typedef union aclrtErrorInfoDetail {
    aclrtMemUceInfoArray uceInfo;
    aclrtAicoreErrorType aicoreErrType;
} aclrtErrorInfoDetail;

/* Detail of the last device error (aclrtGetErrorVerbose / aclrtRepairError). */
typedef struct aclrtErrorInfo {
    uint8_t tryRepair;
    uint8_t hasDetail;
    uint8_t reserved[2];
    aclrtErrorType errorType;
    aclrtErrorInfoDetail detail;
} aclrtErrorInfo;

/* Cache maintenance operations. */
typedef enum aclrtCmoType {
    ACL_RT_CMO_TYPE_PREFETCH = 0,
    ACL_RT_CMO_TYPE_WRITEBACK = 1,
    ACL_RT_CMO_TYPE_INVALID = 2,
    ACL_RT_CMO_TYPE_FLUSH = 3
} aclrtCmoType;

/* Level of aclrtGetLastError / aclrtPeekAtLastError: only the thread level
 * is exposed. */
typedef enum aclrtLastErrLevel {
    ACL_RT_THREAD_LEVEL = 0
} aclrtLastErrLevel;

/* Option kinds of aclrtBinaryLoadFromFile / aclrtBinaryLoadFromData. LAZY_MAGIC
 * is the deprecated name of MAGIC (same value). */
typedef enum aclrtBinaryLoadOptionType {
    ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD = 1,
    ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC = 2,
    ACL_RT_BINARY_LOAD_OPT_MAGIC = 2,
    ACL_RT_BINARY_LOAD_OPT_CPU_KERNEL_MODE = 3
} aclrtBinaryLoadOptionType;

/* Value of one load option (16 bytes). */
typedef union aclrtBinaryLoadOptionValue {
    uint32_t isLazyLoad;
    uint32_t magic;
    int32_t cpuKernelMode;
    uint32_t rsv[4];
} aclrtBinaryLoadOptionValue;

/* One load option: 20 bytes, value at offset 4. */
typedef struct aclrtBinaryLoadOption {
    aclrtBinaryLoadOptionType type;
    aclrtBinaryLoadOptionValue value;
} aclrtBinaryLoadOption;

/* Load options; `options` must be non-NULL even when numOpt is 0. */
typedef struct aclrtBinaryLoadOptions {
    aclrtBinaryLoadOption *options;
    size_t numOpt;
} aclrtBinaryLoadOptions;

/* Engine of a launch (Atlas inference series only). */
typedef enum aclrtEngineType {
    ACL_RT_ENGINE_TYPE_AIC = 0,
    ACL_RT_ENGINE_TYPE_AIV = 1
} aclrtEngineType;

/* Grid and block shape of a SIMT launch (C layout; no constructors here). */
typedef struct dim3 {
    uint32_t x;
    uint32_t y;
    uint32_t z;
} dim3;

/* Launch attribute ids of aclrtLaunchKernelWithConfig. LOCAL_MEMORY_SIZE is
 * the deprecated name of DYN_UBUF_SIZE (same value). */
typedef enum aclrtLaunchKernelAttrId {
    ACL_RT_LAUNCH_KERNEL_ATTR_SCHEM_MODE = 1,
    ACL_RT_LAUNCH_KERNEL_ATTR_LOCAL_MEMORY_SIZE = 2,
    ACL_RT_LAUNCH_KERNEL_ATTR_DYN_UBUF_SIZE = 2,
    ACL_RT_LAUNCH_KERNEL_ATTR_ENGINE_TYPE = 3,
    ACL_RT_LAUNCH_KERNEL_ATTR_BLOCKDIM_OFFSET = 4,
    ACL_RT_LAUNCH_KERNEL_ATTR_BLOCK_TASK_PREFETCH = 5,
    ACL_RT_LAUNCH_KERNEL_ATTR_DATA_DUMP = 6,
    ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT = 7,
    ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US = 8,
    ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING = 9
} aclrtLaunchKernelAttrId;

/* A 64-bit timeout in microseconds, as two halves. */
typedef struct aclrtTimeoutUs {
    uint32_t timeoutLow;
    uint32_t timeoutHigh;
} aclrtTimeoutUs;

/* Value of one launch attribute (16 bytes). */
typedef union aclrtLaunchKernelAttrValue {
    uint8_t schemMode;
    uint32_t localMemorySize;
    uint32_t dynUBufSize;
    aclrtEngineType engineType;
    uint32_t blockDimOffset;
    uint8_t isBlockTaskPrefetch;
    uint8_t isDataDump;
    uint16_t timeout;
    aclrtTimeoutUs timeoutUs;
    uint8_t enableProfiling;
    uint32_t rsv[4];
} aclrtLaunchKernelAttrValue;

/* One launch attribute: 20 bytes, value at offset 4. */
typedef struct aclrtLaunchKernelAttr {
    aclrtLaunchKernelAttrId id;
    aclrtLaunchKernelAttrValue value;
} aclrtLaunchKernelAttr;

/* Launch configuration; `attrs` must be non-NULL even when numAttrs is 0. */
typedef struct aclrtLaunchKernelCfg {
    aclrtLaunchKernelAttr *attrs;
    size_t numAttrs;
} aclrtLaunchKernelCfg;

/* Stream attributes of aclrtSetStreamAttribute / aclrtGetStreamAttribute. */
typedef enum aclrtStreamAttr {
    ACL_STREAM_ATTR_FAILURE_MODE = 1,
    ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK = 2,
    ACL_STREAM_ATTR_USER_CUSTOM_TAG = 3,
    ACL_STREAM_ATTR_CACHE_OP_INFO = 4,
    ACL_STREAM_ATTR_PRIORITY = 5
} aclrtStreamAttr;

typedef union aclrtStreamAttrValue {
    uint64_t failureMode;
    uint32_t overflowSwitch;
    uint32_t userCustomTag;
    uint32_t cacheOpInfoSwitch;
    uint32_t streamPriority;
    uint32_t reserve[4];
} aclrtStreamAttrValue;

/* Tasks of a model runtime instance and their parameters. */
typedef enum aclmdlRITaskType {
    ACL_MODEL_RI_TASK_DEFAULT = 0,
    ACL_MODEL_RI_TASK_KERNEL = 1,
    ACL_MODEL_RI_TASK_EVENT_RECORD = 2,
    ACL_MODEL_RI_TASK_EVENT_WAIT = 3,
    ACL_MODEL_RI_TASK_EVENT_RESET = 4,
    ACL_MODEL_RI_TASK_VALUE_WRITE = 5,
    ACL_MODEL_RI_TASK_VALUE_WAIT = 6
} aclmdlRITaskType;

typedef struct aclmdlRIKernelTaskParams {
    aclrtFuncHandle funcHandle;
    aclrtLaunchKernelCfg *cfg;
    void *args;
    uint32_t isHostArgs;
    size_t argsSize;
    uint32_t numBlocks;
    uint32_t rsv[10];
} aclmdlRIKernelTaskParams;

typedef struct aclmdlRIEventRecordTaskParams {
    aclrtEvent event;
    uint32_t eventFlag;
    uint32_t recordFlag;
} aclmdlRIEventRecordTaskParams;

typedef struct aclmdlRIEventWaitTaskParams {
    aclrtEvent event;
    uint32_t eventFlag;
    uint32_t waitFlag;
} aclmdlRIEventWaitTaskParams;

typedef struct aclmdlRIEventResetTaskParams {
    aclrtEvent event;
    uint32_t eventFlag;
    uint32_t resetFlag;
} aclmdlRIEventResetTaskParams;

typedef struct aclmdlRIValueWriteTaskParams {
    void *devAddr;
    uint64_t value;
} aclmdlRIValueWriteTaskParams;

typedef struct aclmdlRIValueWaitTaskParams {
    void *devAddr;
    uint64_t value;
    uint32_t flag;
} aclmdlRIValueWaitTaskParams;

typedef struct aclmdlRITaskParams {
    aclmdlRITaskType type;
    uint32_t rsv0[3];
    aclrtTaskGrp taskGrp;
    void *opInfoPtr;
    size_t opInfoSize;
    uint8_t rsv1[32];
    union {
        uint8_t rsv2[128];
        struct aclmdlRIKernelTaskParams kernelTaskParams;
        struct aclmdlRIEventRecordTaskParams eventRecordTaskParams;
        struct aclmdlRIEventWaitTaskParams eventWaitTaskParams;
        struct aclmdlRIEventResetTaskParams eventResetTaskParams;
        struct aclmdlRIValueWriteTaskParams valueWriteTaskParams;
        struct aclmdlRIValueWaitTaskParams valueWaitTaskParams;
    };
} aclmdlRITaskParams;

/* Device attributes of aclrtGetDeviceInfo (values are the real API's ids). */
typedef enum aclrtDevAttr {
    ACL_DEV_ATTR_AICPU_CORE_NUM = 1,
    ACL_DEV_ATTR_AICORE_CORE_NUM = 101,
    ACL_DEV_ATTR_CUBE_CORE_NUM = 102,
    ACL_DEV_ATTR_VECTOR_CORE_NUM = 201,
    ACL_DEV_ATTR_WARP_SIZE = 202,
    ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE = 203,
    ACL_DEV_ATTR_LOCAL_MEM_PER_VECTOR_CORE = 204,
    ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE = 204,
    ACL_DEV_ATTR_MAX_GRID_DIM_X = 205,
    ACL_DEV_ATTR_MAX_GRID_DIM_Y = 206,
    ACL_DEV_ATTR_MAX_GRID_DIM_Z = 207,
    ACL_DEV_ATTR_MAX_BLOCK_PER_GRID = 208,
    ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK = 209,
    ACL_DEV_ATTR_MAX_BLOCK_DIM_X = 210,
    ACL_DEV_ATTR_MAX_BLOCK_DIM_Y = 211,
    ACL_DEV_ATTR_MAX_BLOCK_DIM_Z = 212,
    ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE = 301,
    ACL_DEV_ATTR_L2_CACHE_SIZE = 302,
    ACL_DEV_ATTR_SMP_ID = 401U,
    ACL_DEV_ATTR_PHY_CHIP_ID = 402U,
    ACL_DEV_ATTR_SUPER_POD_DEVIDE_ID = 403U,
    ACL_DEV_ATTR_SUPER_POD_DEVICE_ID = 403U,
    ACL_DEV_ATTR_SUPER_POD_SERVER_ID = 404U,
    ACL_DEV_ATTR_SUPER_POD_ID = 405U,
    ACL_DEV_ATTR_CUST_OP_PRIVILEGE = 406U,
    ACL_DEV_ATTR_MAINBOARD_ID = 407U,
    ACL_DEV_ATTR_HD_CONNECT_TYPE = 408U,
    ACL_DEV_ATTR_DEVICE_FORM_FACTOR = 409U,
    ACL_DEV_ATTR_IS_VIRTUAL = 501U,
    ACL_DEV_ATTR_NPU_ARCH = 601U
} aclrtDevAttr;

/* Features queried by aclrtGetDeviceCapability. */
typedef enum aclrtDevFeatureType {
    ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV = 1,
    ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV = 21
} aclrtDevFeatureType;

/* Reductions of aclrtReduceAsync. */
typedef enum aclrtReduceKind {
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM = 10,
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX = 11,
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN = 12,
    ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL = 13
} aclrtReduceKind;

/* Resource kinds limited per device, stream or thread. */
typedef enum aclrtDevResLimitType {
    ACL_RT_DEV_RES_CUBE_CORE = 0,
    ACL_RT_DEV_RES_VECTOR_CORE = 1
} aclrtDevResLimitType;

/* Comparison and operand type of aclrtSwitchStream. */
typedef enum aclrtCondition {
    ACL_RT_EQUAL = 0,
    ACL_RT_NOT_EQUAL = 1,
    ACL_RT_GREATER = 2,
    ACL_RT_GREATER_OR_EQUAL = 3,
    ACL_RT_LESS = 4,
    ACL_RT_LESS_OR_EQUAL = 5
} aclrtCondition;

typedef enum aclrtCompareDataType {
    ACL_RT_SWITCH_INT32 = 0,
    ACL_RT_SWITCH_INT64 = 1
} aclrtCompareDataType;

/* Cache maintenance barriers. */
typedef struct aclrtBarrierCmoInfo {
    aclrtCmoType cmoType;
    uint32_t barrierId;
} aclrtBarrierCmoInfo;

typedef struct aclrtBarrierTaskInfo {
    size_t barrierNum;
    aclrtBarrierCmoInfo cmoInfo[ACL_RT_CMO_MAX_BARRIER_NUM];
} aclrtBarrierTaskInfo;

/* Locations of one group of a batched copy. */
typedef struct aclrtMemcpyBatchAttr {
    aclrtMemLocation dstLoc;
    aclrtMemLocation srcLoc;
    uint8_t rsv[16];
} aclrtMemcpyBatchAttr;

/* Where a placeholder argument is patched in a host argument block. */
typedef struct aclrtPlaceHolderInfo {
    uint32_t addrOffset;
    uint32_t dataOffset;
} aclrtPlaceHolderInfo;

/* Random number generation tasks (aclrtRandomNumAsync). */
typedef struct aclrtRandomParaInfo {
    uint8_t isAddr;
    uint8_t valueOrAddr[8];
    uint8_t size;
    uint8_t rsv[6];
} aclrtRandomParaInfo;

typedef struct aclrtDropoutBitmaskInfo {
    aclrtRandomParaInfo dropoutRation;
} aclrtDropoutBitmaskInfo;

typedef struct aclrtUniformDisInfo {
    aclrtRandomParaInfo min;
    aclrtRandomParaInfo max;
} aclrtUniformDisInfo;

typedef struct aclrtNormalDisInfo {
    aclrtRandomParaInfo mean;
    aclrtRandomParaInfo stddev;
} aclrtNormalDisInfo;

typedef enum aclrtRandomNumFuncType {
    ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK = 0,
    ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS = 1,
    ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS = 2,
    ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS = 3
} aclrtRandomNumFuncType;

typedef struct aclrtRandomNumFuncParaInfo {
    aclrtRandomNumFuncType funcType;
    union {
        aclrtDropoutBitmaskInfo dropoutBitmaskInfo;
        aclrtUniformDisInfo uniformDisInfo;
        aclrtNormalDisInfo normalDisInfo;
    } paramInfo;
} aclrtRandomNumFuncParaInfo;

typedef struct aclrtRandomNumTaskInfo {
    aclDataType dataType;
    aclrtRandomNumFuncParaInfo randomNumFuncParaInfo;
    void *randomParaAddr;
    void *randomResultAddr;
    void *randomCounterAddr;
    aclrtRandomParaInfo randomSeed;
    aclrtRandomParaInfo randomNum;
    uint8_t rsv[8];
} aclrtRandomNumTaskInfo;

/* Task update, device state and snapshot callbacks. */
typedef enum aclrtDeviceTaskAbortStage {
    ACL_RT_DEVICE_TASK_ABORT_PRE = 0,
    ACL_RT_DEVICE_TASK_ABORT_POST = 1
} aclrtDeviceTaskAbortStage;

typedef enum aclrtUpdateTaskAttrId {
    ACL_RT_UPDATE_RANDOM_TASK = 1,
    ACL_RT_UPDATE_AIC_AIV_TASK = 2
} aclrtUpdateTaskAttrId;

typedef struct aclrtRandomTaskUpdateAttr {
    void *srcAddr;
    size_t size;
    uint32_t rsv[4];
} aclrtRandomTaskUpdateAttr;

typedef struct aclrtAicAivTaskUpdateAttr {
    void *binHandle;
    void *funcEntryAddr;
    void *blockDimAddr;
    uint32_t rsv[4];
} aclrtAicAivTaskUpdateAttr;

typedef union aclrtUpdateTaskAttrVal {
    aclrtRandomTaskUpdateAttr randomTaskAttr;
    aclrtAicAivTaskUpdateAttr aicAivTaskAttr;
} aclrtUpdateTaskAttrVal;

typedef struct aclrtTaskUpdateInfo {
    aclrtUpdateTaskAttrId id;
    aclrtUpdateTaskAttrVal val;
} aclrtTaskUpdateInfo;

typedef enum aclrtDeviceState {
    ACL_RT_DEVICE_STATE_SET_PRE = 0,
    ACL_RT_DEVICE_STATE_SET_POST = 1,
    ACL_RT_DEVICE_STATE_RESET_PRE = 2,
    ACL_RT_DEVICE_STATE_RESET_POST = 3
} aclrtDeviceState;

typedef void (*aclrtDeviceStateCallback)(int32_t deviceId, aclrtDeviceState state, void *args);

typedef enum aclrtSnapShotStage {
    ACL_RT_SNAPSHOT_LOCK_PRE = 0,
    ACL_RT_SNAPSHOT_BACKUP_PRE = 1,
    ACL_RT_SNAPSHOT_BACKUP_POST = 2,
    ACL_RT_SNAPSHOT_RESTORE_PRE = 3,
    ACL_RT_SNAPSHOT_RESTORE_POST = 4,
    ACL_RT_SNAPSHOT_UNLOCK_POST = 5
} aclrtSnapShotStage;

typedef uint32_t (*aclrtSnapShotCallBack)(int32_t deviceId, void *args);

typedef struct aclrtSnapShotBackupArgs {
    uint32_t backupFlags;
    char reserved[60];
} aclrtSnapShotBackupArgs;

typedef struct aclrtSnapShotRestoreArgs {
    uint32_t restoreFlags;
    char reserved[60];
} aclrtSnapShotRestoreArgs;

typedef struct aclrtUuid {
    char bytes[16];
} aclrtUuid;

/* Stream life events reported to aclrtRegStreamStateCallback callbacks. */
typedef enum aclrtStreamState {
    ACL_RT_STREAM_STATE_CREATE_POST = 1,
    ACL_RT_STREAM_STATE_DESTROY_PRE = 2
} aclrtStreamState;

typedef void (*aclrtStreamStateCallback)(aclrtStream stm, aclrtStreamState state, void *args);

typedef int32_t (*aclrtDeviceTaskAbortCallback)(int32_t deviceId, aclrtDeviceTaskAbortStage stage, uint32_t timeout, void *args);

/* Kernel function attributes and kinds. */
typedef enum aclrtFuncAttribute {
    ACL_FUNC_ATTR_KERNEL_TYPE = 1,
    ACL_FUNC_ATTR_KERNEL_RATIO = 2,
    ACL_FUNC_ATTR_KERNEL_SCHED_MODE = 3
} aclrtFuncAttribute;

typedef enum aclrtKernelType {
    ACL_KERNEL_TYPE_AICORE = 0,
    ACL_KERNEL_TYPE_CUBE = 1,
    ACL_KERNEL_TYPE_VECTOR = 2,
    ACL_KERNEL_TYPE_MIX = 3,
    ACL_KERNEL_TYPE_AICPU = 100
} aclrtKernelType;

/* Counting notifies: record and wait modes. */
typedef enum aclrtCntNotifyRecordMode {
    ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE = 0,
    ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE = 1,
    ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE = 2,
    ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE = 4
} aclrtCntNotifyRecordMode;

typedef struct aclrtCntNotifyRecordInfo {
    aclrtCntNotifyRecordMode mode;
    uint32_t value;
} aclrtCntNotifyRecordInfo;

typedef enum aclrtCntNotifyWaitMode {
    ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE = 0,
    ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE = 1,
    ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE = 2,
    ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE = 3,
    ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE = 4
} aclrtCntNotifyWaitMode;

typedef struct aclrtCntNotifyWaitInfo {
    aclrtCntNotifyWaitMode mode;
    uint32_t value;
    uint32_t timeout;
    uint8_t isClear;
    uint8_t rsv[3];
} aclrtCntNotifyWaitInfo;

/* Access rights of a mapped virtual range (aclrtMemSetAccess). */
typedef enum aclrtMemAccessFlags {
    ACL_RT_MEM_ACCESS_FLAGS_NONE = 0x0,
    ACL_RT_MEM_ACCESS_FLAGS_READ = 0x1,
    ACL_RT_MEM_ACCESS_FLAGS_READWRITE = 0x3
} aclrtMemAccessFlags;

typedef struct aclrtMemAccessDesc {
    aclrtMemAccessFlags flags;
    aclrtMemLocation location;
    uint8_t rsv[12];
} aclrtMemAccessDesc;

/* Package whose version aclsysGetCANNVersion reports. */
typedef enum aclCANNPackageName {
    ACL_PKG_NAME_CANN = 0,
    ACL_PKG_NAME_RUNTIME = 1,
    ACL_PKG_NAME_COMPILER = 2,
    ACL_PKG_NAME_HCCL = 3,
    ACL_PKG_NAME_TOOLKIT = 4,
    ACL_PKG_NAME_OPP = 5,
    ACL_PKG_NAME_OPP_KERNEL = 6,
    ACL_PKG_NAME_DRIVER = 7
} aclCANNPackageName;

/* Version strings of one package; fields are NUL-terminated. */
typedef struct aclCANNPackageVersion {
    char version[ACL_PKG_VERSION_MAX_SIZE];
    char majorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char minorVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char releaseVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char patchVersion[ACL_PKG_VERSION_PARTS_MAX_SIZE];
    char reserved[ACL_PKG_VERSION_MAX_SIZE];
} aclCANNPackageVersion;

/* Hardware accelerators whose host memory mapping can be queried. */
typedef enum aclrtHacType {
    ACL_RT_HAC_TYPE_STARS = 0,
    ACL_RT_HAC_TYPE_AICPU = 1,
    ACL_RT_HAC_TYPE_AIC = 2,
    ACL_RT_HAC_TYPE_AIV = 3,
    ACL_RT_HAC_TYPE_PCIEDMA = 4,
    ACL_RT_HAC_TYPE_RDMA = 5,
    ACL_RT_HAC_TYPE_SDMA = 6,
    ACL_RT_HAC_TYPE_DVPP = 7,
    ACL_RT_HAC_TYPE_UDMA = 8,
    ACL_RT_HAC_TYPE_CCU = 9
} aclrtHacType;

typedef enum aclrtHostMemMapCapability {
    ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED = 0,
    ACL_RT_HOST_MEM_MAP_SUPPORTED = 1
} aclrtHostMemMapCapability;

/* Links a mapping may use. */
typedef enum aclrtMemLinkType {
    ACL_RT_MEM_ACCESS_LINK_SIO = 0,
    ACL_RT_MEM_ACCESS_LINK_HCCS = 1,
    ACL_RT_MEM_ACCESS_UB_ONE_PORT_PATH = 2,
    ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH = 3
} aclrtMemLinkType;

/* An event exported for another process (64 opaque bytes). */
typedef struct aclrtIpcEventHandle {
    char reserved[ACL_IPC_EVENT_HANDLE_SIZE];
} aclrtIpcEventHandle;

/* Mapping between page/memory kinds and aclrtMemAttr. */
struct MemAttrMapping {
    uint32_t pgType;
    uint32_t memType;
    bool isHostAlloc;
    aclrtMemAttr memAttr;
};

/* Atomic operations and their capability bits. */
typedef enum aclrtAtomicOperationCapability {
    ACL_RT_ATOMIC_CAPABILITY_SIGNED = 1U << 0,
    ACL_RT_ATOMIC_CAPABILITY_UNSIGNED = 1U << 1,
    ACL_RT_ATOMIC_CAPABILITY_REDUCATION = 1U << 2,
    ACL_RT_ATOMIC_CAPABILITY_REDUCTION = 1U << 2,
    ACL_RT_ATOMIC_CAPABILITY_SCALAR8 = 1U << 3,
    ACL_RT_ATOMIC_CAPABILITY_SCALAR16 = 1U << 4,
    ACL_RT_ATOMIC_CAPABILITY_SCALAR32 = 1U << 5,
    ACL_RT_ATOMIC_CAPABILITY_SCALAR64 = 1U << 6,
    ACL_RT_ATOMIC_CAPABILITY_SCALAR128 = 1U << 7,
    ACL_RT_ATOMIC_CAPABILITY_VECTOR32X4 = 1U << 8
} aclrtAtomicOperationCapability;

typedef enum aclrtAtomicOperation {
    ACL_RT_ATOMIC_OPERATION_INTEGER_ADD = 0,
    ACL_RT_ATOMIC_OPERATION_INTEGER_MIN = 1,
    ACL_RT_ATOMIC_OPERATION_INTEGER_MAX = 2,
    ACL_RT_ATOMIC_OPERATION_INTEGER_INCREMENT = 3,
    ACL_RT_ATOMIC_OPERATION_INTEGER_DECREMENT = 4,
    ACL_RT_ATOMIC_OPERATION_AND = 5,
    ACL_RT_ATOMIC_OPERATION_OR = 6,
    ACL_RT_ATOMIC_OPERATION_XOR = 7,
    ACL_RT_ATOMIC_OPERATION_EXCHANGE = 8,
    ACL_RT_ATOMIC_OPERATION_CAS = 9,
    ACL_RT_ATOMIC_OPERATION_FLOAT_ADD = 10,
    ACL_RT_ATOMIC_OPERATION_FLOAT_MIN = 11,
    ACL_RT_ATOMIC_OPERATION_FLOAT_MAX = 12,
    ACL_RT_ATOMIC_OPERATION_DMA_ADD = 30,
    ACL_RT_ATOMIC_OPERATION_DMA_MIN = 31,
    ACL_RT_ATOMIC_OPERATION_DMA_MAX = 32,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_ADD = 40,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MIN = 41,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MAX = 42,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_CAS = 43,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH = 44
} aclrtAtomicOperation;

/* Conditional tasks of model runtime instances. */
typedef void *aclmdlRICondHandle;

typedef enum aclmdlRICondHandleFlag {
    ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT = 1
} aclmdlRICondHandleFlag;

typedef enum aclmdlRICondTaskType {
    ACL_MODEL_RI_COND_TYPE_IF = 0,
    ACL_MODEL_RI_COND_TYPE_WHILE = 1,
    ACL_MODEL_RI_COND_TYPE_SWITCH = 2
} aclmdlRICondTaskType;

typedef struct tagAclmdlRICondTaskParams {
    aclmdlRICondHandle handle;
    aclmdlRICondTaskType type;
    uint32_t size;
    aclmdlRI *modelRIArray;
} aclmdlRICondTaskParams;

/* Per-device stack and FIFO limits (aclrtDeviceSetLimit). */
typedef enum aclrtDeviceLimit {
    ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE = 0,
    ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE = 1,
    ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE = 2,
    ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE = 3,
    ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE = 4
} aclrtDeviceLimit;

/* Components that may register aclInit / aclFinalize callbacks. */
typedef enum aclRegisterCallbackType {
    ACL_REG_TYPE_ACL_MODEL = 0,
    ACL_REG_TYPE_ACL_OP_EXECUTOR = 1,
    ACL_REG_TYPE_ACL_OP_CBLAS = 2,
    ACL_REG_TYPE_ACL_OP_COMPILER = 3,
    ACL_REG_TYPE_ACL_TDT_CHANNEL = 4,
    ACL_REG_TYPE_ACL_TDT_QUEUE = 5,
    ACL_REG_TYPE_ACL_DVPP = 6,
    ACL_REG_TYPE_ACL_RETR = 7,
    ACL_REG_TYPE_OTHER = 0xFFFF
} aclRegisterCallbackType;

typedef aclError (*aclInitCallbackFunc)(const char *configStr, size_t len, void *userData);

typedef aclError (*aclFinalizeCallbackFunc)(void *userData);

/* Process snapshots. */
typedef enum aclrtProcessState {
    ACL_RT_PROCESS_STATE_RUNNING = 0,
    ACL_RT_PROCESS_STATE_LOCKED = 1
} aclrtProcessState;

/* ======================================================================
 * Functions
 * ==================================================================== */

/* ---- process, versions and init/finalize callbacks --------------------- */
ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount);
ACL_FUNC_VISIBILITY aclError aclsysGetCANNVersion(aclCANNPackageName name,
                                                  aclCANNPackageVersion *version);
ACL_FUNC_VISIBILITY aclError aclsysGetVersionStr(char *pkgName, char *versionStr);
ACL_FUNC_VISIBILITY aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum);
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion,
                                             int32_t *patchVersion);
ACL_FUNC_VISIBILITY aclError aclInitCallbackRegister(aclRegisterCallbackType type,
                                                     aclInitCallbackFunc cbFunc, void *userData);
ACL_FUNC_VISIBILITY aclError aclInitCallbackUnRegister(aclRegisterCallbackType type,
                                                       aclInitCallbackFunc cbFunc);
ACL_FUNC_VISIBILITY aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type,
                                                         aclFinalizeCallbackFunc cbFunc,
                                                         void *userData);
ACL_FUNC_VISIBILITY aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type,
                                                           aclFinalizeCallbackFunc cbFunc);

/* ---- last error, exception reports and device error repair ------------- */
ACL_FUNC_VISIBILITY aclError aclrtPeekAtLastError(aclrtLastErrLevel level);
ACL_FUNC_VISIBILITY aclError aclrtGetLastError(aclrtLastErrLevel level);
ACL_FUNC_VISIBILITY aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback);
ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackRegister(
        aclrtExceptionInfoCallback callback);
ACL_FUNC_VISIBILITY aclError aclrtExceptionInfoCallbackUnregister(
        aclrtExceptionInfoCallback callback);
ACL_FUNC_VISIBILITY uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info);
ACL_FUNC_VISIBILITY aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info,
                                                           void **devArgsPtr, uint32_t *devArgsLen);
ACL_FUNC_VISIBILITY aclError aclrtGetFuncHandleFromExceptionInfo(
        const aclrtExceptionInfo *info, aclrtFuncHandle *func);
ACL_FUNC_VISIBILITY aclError aclrtBinarySetExceptionCallback(
        aclrtBinHandle binHandle, aclrtOpExceptionCallback callback, void *userData);
ACL_FUNC_VISIBILITY aclError aclrtGetThreadLastTaskId(uint32_t *taskId);
ACL_FUNC_VISIBILITY aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray,
                                                size_t arraySize, size_t *retSize);
ACL_FUNC_VISIBILITY aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtMemUceRepair(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray,
                                               size_t arraySize);
ACL_FUNC_VISIBILITY aclError aclrtSetDeviceTaskAbortCallback(
        const char *regName, aclrtDeviceTaskAbortCallback callback, void *args);
ACL_FUNC_VISIBILITY aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo);
ACL_FUNC_VISIBILITY aclError aclrtRepairError(int32_t deviceId, const aclrtErrorInfo *errorInfo);

/* ---- contexts and system parameters ------------------------------------ */
ACL_FUNC_VISIBILITY aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDestroyContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtSetCurrentContext(aclrtContext context);
ACL_FUNC_VISIBILITY aclError aclrtGetCurrentContext(aclrtContext *context);
ACL_FUNC_VISIBILITY aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value);
ACL_FUNC_VISIBILITY aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value);
ACL_FUNC_VISIBILITY aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value);
ACL_FUNC_VISIBILITY aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value);
ACL_FUNC_VISIBILITY aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream);
ACL_FUNC_VISIBILITY aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags,
                                                     int32_t *active);
ACL_FUNC_VISIBILITY aclError aclrtCtxGetFloatOverflowAddr(void **overflowAddr);

/* ---- floating-point overflow ------------------------------------------- */
ACL_FUNC_VISIBILITY aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode);
ACL_FUNC_VISIBILITY aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize,
                                                    aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtResetOverflowStatus(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtGetFloatOverflowStatus(void *outputAddr, uint64_t outputSize,
                                                         aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtResetFloatOverflowStatus(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtNpuGetFloatOverFlowStatus(void *outputAddr, uint64_t outputSize,
                                                            uint32_t checkMode, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtNpuClearFloatOverFlowStatus(
        uint32_t checkMode, aclrtStream stream);

/* ---- streams ----------------------------------------------------------- */
/* mode: ACL_CONTINUE_ON_FAILURE or ACL_STOP_ON_FAILURE; STOP applies to the
 * whole context and is one-way. */
ACL_FUNC_VISIBILITY aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId);
ACL_FUNC_VISIBILITY aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle,
                                                     aclrtStreamConfigAttr attr,
                                                     const void *attrValue, size_t valueSize);
ACL_FUNC_VISIBILITY aclError aclrtCreateStream(aclrtStream *stream);
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamV2(aclrtStream *stream,
                                                 const aclrtStreamConfigHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority,
                                                         uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyStreamForce(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStream(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status);
/* Priority range 0 (highest, the default) to 7 (lowest). */
ACL_FUNC_VISIBILITY aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority);
ACL_FUNC_VISIBILITY aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event,
                                                          uint32_t timeout, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtStreamWaitEventWithTimeout(
        aclrtStream stream, aclrtEvent event, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag);
/* Synchronous: stops the running task, discards the queued ones, and leaves
 * the stream usable. Waits in flight on the stream return
 * ACL_ERROR_RT_STREAM_ABORT. The stream must not be NULL. */
ACL_FUNC_VISIBILITY aclError aclrtStreamAbort(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamAvailableNum(uint32_t *streamCount);
ACL_FUNC_VISIBILITY aclError aclrtSetStreamAttribute(aclrtStream stream,
                                                     aclrtStreamAttr stmAttrType,
                                                     aclrtStreamAttrValue *value);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamAttribute(aclrtStream stream,
                                                     aclrtStreamAttr stmAttrType,
                                                     aclrtStreamAttrValue *value);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetStreamPriorityRange(
        int32_t *leastPriority, int32_t *greatestPriority);
ACL_FUNC_VISIBILITY aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type,
                                                    uint32_t *value);
ACL_FUNC_VISIBILITY aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type,
                                                    uint32_t value);
ACL_FUNC_VISIBILITY aclError aclrtResetStreamResLimit(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtUseStreamResInCurrentThread(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtActiveStream(aclrtStream activeStream, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSwitchStream(void *leftValue, aclrtCondition cond,
                                               void *rightValue, aclrtCompareDataType dataType,
                                               aclrtStream trueStream, aclrtStream falseStream,
                                               aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtRegStreamStateCallback(const char *regName,
                                                         aclrtStreamStateCallback callback,
                                                         void *args);
ACL_FUNC_VISIBILITY aclError aclrtStreamStop(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtPersistentTaskClean(aclrtStream stream);

/* ---- devices, compute groups and resource limits ----------------------- */
ACL_FUNC_VISIBILITY aclError aclrtSetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDevice(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceForce(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDevice(int32_t *deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetRunMode(aclrtRunMode *runMode);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDevice(void);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtSetTsDevice(aclrtTsId tsId);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceUtilizationRate(int32_t deviceId,
                                                           aclrtUtilizationInfo *utilizationInfo);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCount(uint32_t *count);
ACL_FUNC_VISIBILITY aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType,
                                                         aclrtHostMemMapCapability *capabilities);
ACL_FUNC_VISIBILITY aclError aclrtSetGroup(int32_t groupId);
ACL_FUNC_VISIBILITY aclError aclrtGetGroupCount(uint32_t *count);
ACL_FUNC_VISIBILITY aclrtGroupInfo *aclrtCreateGroupInfo(void);
ACL_FUNC_VISIBILITY aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo);
ACL_FUNC_VISIBILITY aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo);
ACL_FUNC_VISIBILITY aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo,
                                                     int32_t groupIndex, aclrtGroupAttr attr,
                                                     void *attrValue, size_t valueLen,
                                                     size_t *paramRetSize);
ACL_FUNC_VISIBILITY aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId,
                                                      int32_t peerDeviceId);
ACL_FUNC_VISIBILITY aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId);
ACL_FUNC_VISIBILITY aclError aclrtQueryDeviceStatus(int32_t deviceId,
                                                    aclrtDeviceStatus *deviceStatus);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetBareTgid(int32_t *pid);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr,
                                                int64_t *value);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceCapability(int32_t deviceId,
                                                      aclrtDevFeatureType devFeatureType,
                                                      int32_t *value);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid);
ACL_FUNC_VISIBILITY aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetHostAtomicCapabilities(
        uint32_t *capabilities, const aclrtAtomicOperation *operations, const uint32_t count,
        int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtDeviceGetP2PAtomicCapabilities(
        uint32_t *capabilities, const aclrtAtomicOperation *operations, const uint32_t count,
        int32_t srcDeviceId, int32_t dstDeviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type,
                                                    uint32_t *value);
ACL_FUNC_VISIBILITY aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type,
                                                    uint32_t value);
ACL_FUNC_VISIBILITY aclError aclrtResetDeviceResLimit(int32_t deviceId);
ACL_FUNC_VISIBILITY aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value);
ACL_FUNC_VISIBILITY aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId,
                                                 uint64_t *value);
ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid,
                                                           int32_t *const logicDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId,
                                                           int32_t *const userDevid);
ACL_FUNC_VISIBILITY aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId,
                                                          int32_t *const logicDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId,
                                                          int32_t *const phyDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId,
                                                         int32_t *const userDevId);
ACL_FUNC_VISIBILITY aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId,
                                                         int32_t *const phyDevId);
ACL_FUNC_VISIBILITY aclError aclrtRegDeviceStateCallback(const char *regName,
                                                         aclrtDeviceStateCallback callback,
                                                         void *args);
ACL_FUNC_VISIBILITY aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId,
                                                         int32_t *status);
ACL_FUNC_VISIBILITY aclError aclrtCheckArchCompatibility(const char *socVersion,
                                                         int32_t *canCompatible);
ACL_FUNC_VISIBILITY aclError aclrtDeviceL2CacheFlush(void *rsv);

/* ---- events ------------------------------------------------------------ */
ACL_FUNC_VISIBILITY aclError aclrtCreateEvent(aclrtEvent *event);
ACL_FUNC_VISIBILITY aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtDestroyEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream,
                                                      uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status);
ACL_FUNC_VISIBILITY aclError aclrtQueryEventStatus(aclrtEvent event,
                                                   aclrtEventRecordedStatus *status);
ACL_FUNC_VISIBILITY aclError aclrtQueryEventWaitStatus(aclrtEvent event,
                                                       aclrtEventWaitStatus *status);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEvent(aclrtEvent event);
ACL_FUNC_VISIBILITY aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent,
                                                   aclrtEvent endEvent);
/* Completion time of the event's record (needs ACL_EVENT_TIME_LINE). */
ACL_FUNC_VISIBILITY aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp);
ACL_FUNC_VISIBILITY aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId);
ACL_FUNC_VISIBILITY aclError aclrtGetEventAvailNum(uint32_t *eventCount);
ACL_FUNC_VISIBILITY aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event);

/* ---- notifies and counting notifies ------------------------------------ */
ACL_FUNC_VISIBILITY aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag);
ACL_FUNC_VISIBILITY aclError aclrtDestroyNotify(aclrtNotify notify);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyCreate(aclrtCntNotify *cntNotify, uint64_t flag);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyDestroy(aclrtCntNotify cntNotify);
ACL_FUNC_VISIBILITY aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream,
                                                     uint32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId);
ACL_FUNC_VISIBILITY aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num);
ACL_FUNC_VISIBILITY aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len,
                                                     uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key,
                                                    uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num);
ACL_FUNC_VISIBILITY aclError aclrtNotifySetImportPidInterServer(
        aclrtNotify notify, aclrtServerPid *serverPids, size_t num);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyRecord(aclrtCntNotify cntNotify, aclrtStream stream,
                                                  aclrtCntNotifyRecordInfo *info);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyWaitWithTimeout(aclrtCntNotify cntNotify,
                                                           aclrtStream stream,
                                                           aclrtCntNotifyWaitInfo *info);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t *notifyId);

/* ---- labels ------------------------------------------------------------ */
ACL_FUNC_VISIBILITY aclError aclrtCreateLabel(aclrtLabel *label);
ACL_FUNC_VISIBILITY aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtDestroyLabel(aclrtLabel label);
ACL_FUNC_VISIBILITY aclError aclrtCreateLabelList(aclrtLabel *labels, size_t num,
                                                  aclrtLabelList *labelList);
ACL_FUNC_VISIBILITY aclError aclrtDestroyLabelList(aclrtLabelList labelList);
ACL_FUNC_VISIBILITY aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue,
                                                     aclrtLabelList labelList, aclrtStream stream);

/* ---- virtual memory, physical allocations and shareable handles -------- */
ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment,
                                                    void *expectPtr, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtReleaseMemAddress(void *virPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                                                 const aclrtPhysicalMemProp *prop, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtFreePhysical(aclrtDrvMemHandle handle);
ACL_FUNC_VISIBILITY aclError aclrtMapMem(void *virPtr, size_t size, size_t offset,
                                         aclrtDrvMemHandle handle, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtUnmapMem(void *virPtr);
ACL_FUNC_VISIBILITY aclError aclrtMemMapNoAccess(void *virPtr, size_t size, size_t offset,
                                                 aclrtDrvMemHandle handle, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandle(
        aclrtDrvMemHandle handle, aclrtMemHandleType handleType, uint64_t flags,
        uint64_t *shareableHandle);
ACL_FUNC_VISIBILITY aclError aclrtMemExportToShareableHandleV2(
        aclrtDrvMemHandle handle, uint64_t flags, aclrtMemSharedHandleType shareType,
        void *shareableHandle);
ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandle(
        uint64_t shareableHandle, int32_t deviceId, aclrtDrvMemHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtMemImportFromShareableHandleV2(
        void *shareableHandle, aclrtMemSharedHandleType shareType, uint64_t flags,
        aclrtDrvMemHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandle(
        uint64_t shareableHandle, int32_t *pid, size_t pidNum);
ACL_FUNC_VISIBILITY aclError aclrtMemSetPidToShareableHandleV2(
        void *shareableHandle, aclrtMemSharedHandleType shareType, int32_t *pid, size_t pidNum);
ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationGranularity(
        aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option, size_t *granularity);
ACL_FUNC_VISIBILITY aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc,
                                               size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location,
                                               uint64_t *flag);
ACL_FUNC_VISIBILITY aclError aclrtMemRetainAllocationHandle(void *virPtr,
                                                            aclrtDrvMemHandle *handle);
ACL_FUNC_VISIBILITY aclError aclrtMemGetAllocationPropertiesFromHandle(
        aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop);
ACL_FUNC_VISIBILITY aclError aclrtReserveMemAddressNoUCMemory(
        void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize);
ACL_FUNC_VISIBILITY aclError aclrtMemP2PMap(void *devPtr, size_t size, int32_t dstDevId,
                                            uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtMemMapSelectedLink(void *virPtrDst, size_t size, void *virPtrSrc,
                                                     uint32_t linkIdx);
ACL_FUNC_VISIBILITY aclError aclrtMemMapSetLink(aclrtDrvMemHandle handle,
                                                aclrtMemLinkType adviceLink);

/* ---- memory shared between processes ----------------------------------- */
ACL_FUNC_VISIBILITY aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key,
                                                     size_t len, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemClose(const char *key);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type,
                                                uint64_t attr);
ACL_FUNC_VISIBILITY aclError aclrtIpcMemImportPidInterServer(
        const char *key, aclrtServerPid *serverPids, size_t num);

/* ---- copies, fills, reductions, cache maintenance and value tasks ------ */
ACL_FUNC_VISIBILITY aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                                         aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value,
                                         size_t count);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src,
                                              size_t count, aclrtMemcpyKind kind,
                                              aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N);
ACL_FUNC_VISIBILITY aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value,
                                                 size_t N, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax,
                                                           const void *src, size_t count,
                                                           aclrtMemcpyKind kind,
                                                           aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch,
                                           size_t width, size_t height, aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src,
                                                size_t spitch, size_t width, size_t height,
                                                aclrtMemcpyKind kind, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyFromSymbol(void *dst, size_t dstMax, const void *symbol,
                                                   size_t count, size_t offset,
                                                   aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyFromSymbolAsync(void *dst, size_t dstMax,
                                                        const void *symbol, size_t count,
                                                        size_t offset, aclrtMemcpyKind kind,
                                                        aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                                 size_t offset, aclrtMemcpyKind kind);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyToSymbolAsync(const void *symbol, const void *src,
                                                      size_t count, size_t offset,
                                                      aclrtMemcpyKind kind, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value,
                                              size_t count, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType,
                                           aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize);
ACL_FUNC_VISIBILITY aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr,
                                                void *dstAddr, size_t count, void *config);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax,
                                                        size_t dstDataOffset, const void **src,
                                                        size_t count, size_t srcDataOffset,
                                                        aclrtMemcpyKind kind, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind,
                                                      aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag,
                                             aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag,
                                            aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count,
                                              aclrtReduceKind kind, aclDataType type,
                                              aclrtStream stream, void *reserve);
ACL_FUNC_VISIBILITY aclError aclrtCmoAsyncWithBarrier(void *src, size_t size, aclrtCmoType cmoType,
                                                      uint32_t barrierId, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtCmoWaitBarrier(aclrtBarrierTaskInfo *taskInfo, aclrtStream stream,
                                                 uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs,
                                              size_t *sizes, size_t numBatches,
                                              aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                              size_t numAttrs, size_t *failIndex);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatchV2(void **dsts, size_t *destMaxs, void **srcs,
                                                size_t *sizes, size_t numBatches,
                                                aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                                size_t numAttrs);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs,
                                                   size_t *sizes, size_t numBatches,
                                                   aclrtMemcpyBatchAttr *attrs,
                                                   size_t *attrsIndexes, size_t numAttrs,
                                                   size_t *failIndex, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemcpyBatchAsyncV2(void **dsts, size_t *destMaxs, void **srcs,
                                                     size_t *sizes, size_t numBatches,
                                                     aclrtMemcpyBatchAttr *attrs,
                                                     size_t *attrsIndexes, size_t numAttrs,
                                                     aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtCmoGetDescSize(size_t *size);
ACL_FUNC_VISIBILITY aclError aclrtCmoSetDesc(void *cmoDesc, void *src, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtCmoAsyncWithDesc(void *cmoDesc, aclrtCmoType cmoType,
                                                   aclrtStream stream, const void *reserve);

/* ---- memory ------------------------------------------------------------ */
ACL_FUNC_VISIBILITY aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtMallocAlign32(void **devPtr, size_t size,
                                                aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtMallocCached(void **devPtr, size_t size,
                                               aclrtMemMallocPolicy policy);
ACL_FUNC_VISIBILITY aclError aclrtMallocWithCfg(void **devPtr, size_t size,
                                                aclrtMemMallocPolicy policy,
                                                aclrtMallocConfig *cfg);
ACL_FUNC_VISIBILITY aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size,
                                                         aclrtMemMallocPolicy policy,
                                                         aclrtMallocConfig *cfg);
ACL_FUNC_VISIBILITY aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size,
                                                    aclrtMallocConfig *cfg);
ACL_FUNC_VISIBILITY aclError aclrtPointerGetAttributes(const void *ptr,
                                                       aclrtPtrAttributes *attributes);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute,
                                                    const void *ptr, size_t size, void *data,
                                                    size_t dataSize);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute *attributes,
                                                     size_t numAttributes, const void *ptr,
                                                     size_t size, void **data, size_t *dataSizes);
/* Maps page-aligned host memory for the current context's device; *devPtr is
 * a device-side alias for device code only, never a memcpy operand. */
ACL_FUNC_VISIBILITY aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type,
                                               void **devPtr);
ACL_FUNC_VISIBILITY aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag);
/* ptr must be the exact base address that was registered. */
ACL_FUNC_VISIBILITY aclError aclrtHostUnregister(void *ptr);
ACL_FUNC_VISIBILITY aclError aclrtMemFlush(void *devPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtMemInvalidate(void *devPtr, size_t size);
ACL_FUNC_VISIBILITY aclError aclrtFree(void *devPtr);
ACL_FUNC_VISIBILITY aclError aclrtMallocHost(void **hostPtr, size_t size);
/* flag must be ACL_RT_MEM_ATTACH_GLOBAL; size rounds up to 2 MiB; free with
 * aclrtFree. */
ACL_FUNC_VISIBILITY aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclrtFreeHost(void *hostPtr);
ACL_FUNC_VISIBILITY aclError aclrtFreeWithDevSync(void *devPtr);
ACL_FUNC_VISIBILITY aclError aclrtFreeHostWithDevSync(void *hostPtr);
ACL_FUNC_VISIBILITY aclError aclrtGetSymbolAddress(const void *symbol, void **devPtr);
ACL_FUNC_VISIBILITY aclError aclrtGetSymbolSize(const void *symbol, size_t *size);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedAdvise(const void *const ptr, uint64_t size,
                                                   aclrtMemManagedAdviseType advise,
                                                   aclrtMemManagedLocation location);
ACL_FUNC_VISIBILITY aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total);
ACL_FUNC_VISIBILITY aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo,
                                                  size_t inputNum, size_t *outputNum);
ACL_FUNC_VISIBILITY aclError aclrtGetFuncBySymbol(const void *symbol, aclrtFuncHandle *funcHandle);
ACL_FUNC_VISIBILITY aclError aclrtFreeBuf(aclrtMbuf buf);
ACL_FUNC_VISIBILITY aclError aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType,
                                               uint32_t *checkResult, uint32_t reserve);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size,
                                                          aclrtMemManagedLocation location,
                                                          uint32_t flags, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtMemManagedPrefetchBatchAsync(
        const void **ptrs, size_t *sizes, size_t count, aclrtMemManagedLocation *prefetchLocs,
        size_t *prefetchLocIdxs, size_t numPrefetchLocs, uint64_t flags, aclrtStream stream);

/* ---- callbacks, host functions and timeouts ---------------------------- */
ACL_FUNC_VISIBILITY aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
                                                 aclrtCallbackBlockType blockType,
                                                 aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtProcessReport(int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtSetOpWaitTimeout(uint32_t timeout);
/* The longest an AI Core kernel may run, in seconds, process-wide (the last
 * call wins; 0 restores the chip's default). A kernel still running at the
 * limit fails with ACL_ERROR_RT_AICORE_TIMEOUT, reported when its stream is
 * synchronised. */
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOut(uint32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout);
ACL_FUNC_VISIBILITY aclError aclrtGetOpTimeOutInterval(uint64_t *interval);
ACL_FUNC_VISIBILITY aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId,
                                                    aclrtStream exeStream);
ACL_FUNC_VISIBILITY aclError aclrtProcessHostFunc(int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId,
                                                      aclrtStream exeStream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args);
ACL_FUNC_VISIBILITY aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs);

/* ---- kernel binaries, functions, arguments and launches ---------------- */
ACL_FUNC_VISIBILITY aclrtBinary aclrtCreateBinary(const void *data, size_t dataLen);
ACL_FUNC_VISIBILITY aclError aclrtDestroyBinary(aclrtBinary binary);
ACL_FUNC_VISIBILITY aclError aclrtBinaryLoad(const aclrtBinary binary, aclrtBinHandle *binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle,
                                                    const char *kernelName,
                                                    aclrtFuncHandle *funcHandle);
/* Asynchronous. argsData is a device address holding the argument block
 * (8-byte aligned slots); it must stay valid until the kernel has run. */
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernel(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                               const void *argsData, size_t argsSize,
                                               aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtBinaryLoadFromFile(const char *binPath,
                                                     aclrtBinaryLoadOptions *options,
                                                     aclrtBinHandle *binHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetDevAddress(const aclrtBinHandle binHandle,
                                                      void **binAddr, size_t *binSize);
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetFunctionByEntry(aclrtBinHandle binHandle,
                                                           uint64_t funcEntry,
                                                           aclrtFuncHandle *funcHandle);
ACL_FUNC_VISIBILITY aclError aclrtBinaryGetGlobal(aclrtBinHandle binHandle, const char *name,
                                                  void **dptr, size_t *size);
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr,
                                                  void **aivAddr);
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionSize(aclrtFuncHandle funcHandle, size_t *aicSize,
                                                  size_t *aivSize);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetHandleMemSize(
        aclrtFuncHandle funcHandle, size_t *memSize);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetMemSize(aclrtFuncHandle funcHandle,
                                                       size_t userArgsSize, size_t *actualArgsSize);
/* Returns the calling thread's single argument list, re-initialised. */
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle,
                                                 aclrtArgsHandle *argsHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsInitByUserMem(aclrtFuncHandle funcHandle,
                                                          aclrtArgsHandle argsHandle,
                                                          void *userHostMem, size_t actualArgsSize);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void *param,
                                                   size_t paramSize, aclrtParamHandle *paramHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsAppendPlaceHolder(
        aclrtArgsHandle argsHandle, aclrtParamHandle *paramHandle);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsGetPlaceHolderBuffer(
        aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, size_t dataSize,
        void **bufferAddr);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsParaUpdate(aclrtArgsHandle argsHandle,
                                                       aclrtParamHandle paramHandle, void *param,
                                                       size_t paramSize);
/* Asynchronous. cfg may be NULL; reserve must be NULL. */
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle,
                                                         uint32_t numBlocks, aclrtStream stream,
                                                         aclrtLaunchKernelCfg *cfg,
                                                         aclrtArgsHandle argsHandle, void *reserve);
ACL_FUNC_VISIBILITY aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle);
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionName(aclrtFuncHandle funcHandle, uint32_t maxLen,
                                                  char *name);
ACL_FUNC_VISIBILITY aclError aclrtBinaryLoadFromData(const void *data, size_t length,
                                                     const aclrtBinaryLoadOptions *options,
                                                     aclrtBinHandle *binHandle);
ACL_FUNC_VISIBILITY aclError aclrtRegisterCpuFunc(const aclrtBinHandle handle, const char *funcName,
                                                  const char *kernelName,
                                                  aclrtFuncHandle *funcHandle);
ACL_FUNC_VISIBILITY aclError aclrtProfTrace(void *userdata, int32_t length, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelV2(aclrtFuncHandle funcHandle, uint32_t numBlocks,
                                                 const void *argsData, size_t argsSize,
                                                 aclrtLaunchKernelCfg *cfg, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithHostArgs(aclrtFuncHandle funcHandle,
                                                           uint32_t numBlocks, aclrtStream stream,
                                                           aclrtLaunchKernelCfg *cfg,
                                                           void *hostArgs, size_t argsSize,
                                                           aclrtPlaceHolderInfo *placeHolderArray,
                                                           size_t placeHolderNum);
ACL_FUNC_VISIBILITY aclError aclrtLaunchKernelWithArgsArray(void *func, uint32_t numBlocks,
                                                            aclrtStream stream,
                                                            aclrtLaunchKernelCfg *cfg, void **args);
ACL_FUNC_VISIBILITY aclError aclrtLaunchSIMTKernelWithArgsArray(
        void *func, dim3 gridDim, dim3 blockDim, size_t dynUbufSize, aclrtStream stream,
        aclrtLaunchKernelCfg *cfg, void **args);
ACL_FUNC_VISIBILITY aclError aclrtLaunchSIMTKernelWithHostArgs(
        void *func, dim3 gridDim, dim3 blockDim, size_t dynUbufSize, aclrtStream stream,
        aclrtLaunchKernelCfg *cfg, void *hostArgs, size_t argsSize,
        aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum);
ACL_FUNC_VISIBILITY aclError aclrtGetHardwareSyncAddr(void **addr);
ACL_FUNC_VISIBILITY aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo,
                                                 const aclrtStream stream, void *reserve);
ACL_FUNC_VISIBILITY aclError aclrtTaskUpdateAsync(aclrtStream taskStream, uint32_t taskId,
                                                  aclrtTaskUpdateInfo *info,
                                                  aclrtStream execStream);
ACL_FUNC_VISIBILITY aclError aclrtCacheLastTaskOpInfo(const void *const infoPtr,
                                                      const size_t infoSize);
ACL_FUNC_VISIBILITY aclError aclrtCacheLastTaskExtendInfo(const char *const extendInfoPtr,
                                                          const size_t infoSize);
ACL_FUNC_VISIBILITY aclError aclrtGetFunctionAttribute(aclrtFuncHandle funcHandle,
                                                       aclrtFuncAttribute attrType,
                                                       int64_t *attrValue);
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetBinary(const aclrtFuncHandle funcHandle,
                                                    aclrtBinHandle *binHandle);
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetParamCount(const void *func, size_t *paramCount);
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetParamInfo(const void *func, size_t paramIndex,
                                                       size_t *paramOffset, size_t *paramSize);
ACL_FUNC_VISIBILITY aclError aclrtFunctionGetAvailDynUbufPerBlock(
        void *func, uint32_t flags, size_t *dynamicUbufSize);

/* ---- message buffers --------------------------------------------------- */
ACL_FUNC_VISIBILITY aclError aclrtGetBufFromChain(aclrtMbuf headBuf, uint32_t index,
                                                  aclrtMbuf *buf);
ACL_FUNC_VISIBILITY aclError aclrtGetBufChainNum(aclrtMbuf headBuf, uint32_t *num);
ACL_FUNC_VISIBILITY aclError aclrtAppendBufChain(aclrtMbuf headBuf, aclrtMbuf buf);
ACL_FUNC_VISIBILITY aclError aclrtCopyBufRef(const aclrtMbuf buf, aclrtMbuf *newBuf);
ACL_FUNC_VISIBILITY aclError aclrtGetBufUserData(const aclrtMbuf buf, void *dataPtr, size_t size,
                                                 size_t offset);
ACL_FUNC_VISIBILITY aclError aclrtSetBufUserData(aclrtMbuf buf, const void *dataPtr, size_t size,
                                                 size_t offset);
ACL_FUNC_VISIBILITY aclError aclrtGetBufData(const aclrtMbuf buf, void **dataPtr, size_t *size);
ACL_FUNC_VISIBILITY aclError aclrtGetBufDataLen(aclrtMbuf buf, size_t *len);
ACL_FUNC_VISIBILITY aclError aclrtSetBufDataLen(aclrtMbuf buf, size_t len);
ACL_FUNC_VISIBILITY aclError aclrtAllocBuf(aclrtMbuf *buf, size_t size);

/* ---- process snapshots ------------------------------------------------- */
ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessLock(int pid, void *reserve);
ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessUnlock(int pid, void *reserve);
ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessBackup(int pid, aclrtSnapShotBackupArgs *args);
ACL_FUNC_VISIBILITY aclError aclrtSnapShotProcessRestore(int pid, aclrtSnapShotRestoreArgs *args);
ACL_FUNC_VISIBILITY aclError aclrtSnapShotCallbackRegister(aclrtSnapShotStage stage,
                                                           aclrtSnapShotCallBack callback,
                                                           void *args);
ACL_FUNC_VISIBILITY aclError aclrtSnapShotCallbackUnregister(
        aclrtSnapShotStage stage, aclrtSnapShotCallBack callback);

/* ---- model runtime instances and dumps --------------------------------- */
ACL_FUNC_VISIBILITY aclError aclmdlRITaskGetParams(aclmdlRITask task, aclmdlRITaskParams *params);
ACL_FUNC_VISIBILITY aclError aclmdlRITaskSetParams(aclmdlRITask task, aclmdlRITaskParams *params);
ACL_FUNC_VISIBILITY aclError aclmdlRIKernelTaskGetAttribute(aclmdlRITask task,
                                                            aclrtLaunchKernelAttrId attrId,
                                                            aclrtLaunchKernelAttrValue *attrValue);
ACL_FUNC_VISIBILITY aclError aclmdlRIUpdate(aclmdlRI modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRITaskDisable(aclmdlRITask task);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureGetInfo(aclrtStream stream,
                                                    aclmdlRICaptureStatus *status,
                                                    aclmdlRI *modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRIDebugPrint(aclmdlRI modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path,
                                                    uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode);
ACL_FUNC_VISIBILITY aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout);
ACL_FUNC_VISIBILITY aclError aclmdlRIDestroy(aclmdlRI modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpBegin(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskGrpEnd(aclrtStream stream, aclrtTaskGrp *handle);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateBegin(aclrtStream stream,
                                                            aclrtTaskGrp handle);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureTaskUpdateEnd(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream,
                                                uint32_t flag);
ACL_FUNC_VISIBILITY aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve);
ACL_FUNC_VISIBILITY aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclmdlRISetName(aclmdlRI modelRI, const char *name);
ACL_FUNC_VISIBILITY aclError aclmdlRIGetName(aclmdlRI modelRI, uint32_t maxLen, char *name);
ACL_FUNC_VISIBILITY aclError aclmdlRIGetId(aclmdlRI modelRI, uint32_t *modelRIId);
ACL_FUNC_VISIBILITY aclError aclmdlRIDestroyRegisterCallback(
        aclmdlRI modelRI, aclrtCallback func, void *userData);
ACL_FUNC_VISIBILITY aclError aclmdlRIDestroyUnregisterCallback(
        aclmdlRI modelRI, aclrtCallback func);
ACL_FUNC_VISIBILITY aclError aclmdlInitDump(void);
ACL_FUNC_VISIBILITY aclError aclmdlSetDump(const char *dumpCfgPath);
ACL_FUNC_VISIBILITY aclError aclmdlFinalizeDump(void);
ACL_FUNC_VISIBILITY aclError aclmdlRIGetStreams(aclmdlRI modelRI, aclrtStream *streams,
                                                uint32_t *numStreams);
ACL_FUNC_VISIBILITY aclError aclmdlRIGetTasksByStream(aclrtStream stream, aclmdlRITask *tasks,
                                                      uint32_t *numTasks);
ACL_FUNC_VISIBILITY aclError aclmdlRITaskGetType(aclmdlRITask task, aclmdlRITaskType *type);
ACL_FUNC_VISIBILITY aclError aclmdlRITaskGetSeqId(aclmdlRITask task, uint32_t *id);
ACL_FUNC_VISIBILITY aclError aclmdlRIAbort(aclmdlRI modelRI);
ACL_FUNC_VISIBILITY aclError aclmdlRICondHandleCreate(aclmdlRI modelRI, uint32_t defaultLaunchValue,
                                                      aclmdlRICondHandleFlag flag,
                                                      aclmdlRICondHandle *handle);
ACL_FUNC_VISIBILITY aclError aclmdlRICondHandleGetCondPtr(aclmdlRICondHandle handle,
                                                          uint64_t **ptr);
ACL_FUNC_VISIBILITY aclError aclmdlRIAddCondTask(aclmdlRICondTaskParams params, aclrtStream stream,
                                                 uint32_t flags);
ACL_FUNC_VISIBILITY aclError aclmdlRICaptureToModelRIBegin(aclrtStream stream, aclmdlRI modelRI,
                                                           aclmdlRICaptureMode mode);

#ifdef __cplusplus
}
#endif

#endif /* ACLRT_PROJECT_ACL_RT_H */
