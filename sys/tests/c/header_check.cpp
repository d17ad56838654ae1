// The project's AscendCL header compiled as C++17: names, types and
// constants used the way C++ applications use them.
#include "acl/acl.h"

#include <cstddef>
#include <cstdio>
#include <type_traits>

static_assert(std::is_same<aclError, int>::value, "aclError is int");
static_assert(sizeof(aclrtStream) == sizeof(void *), "handles are pointers");
static_assert(ACL_MEMCPY_DEVICE_TO_HOST == 2, "memcpy kind");
static_assert(ACL_EVENT_RECORDED_STATUS_COMPLETE == 1, "recorded status");
static_assert(ACL_ERROR_RT_STREAM_CONTEXT == 107003, "rt error code");
// Kernel loading and launch: layouts of the real header (LP64).
static_assert(sizeof(aclrtBinaryLoadOptionValue) == 16, "load option value");
static_assert(sizeof(aclrtBinaryLoadOption) == 20 && alignof(aclrtBinaryLoadOption) == 4, "load option");
static_assert(offsetof(aclrtBinaryLoadOption, value) == 4, "load option value offset");
static_assert(sizeof(aclrtBinaryLoadOptions) == 16, "load options");
static_assert(sizeof(aclrtLaunchKernelAttrValue) == 16, "launch attr value");
static_assert(sizeof(aclrtLaunchKernelAttr) == 20 && alignof(aclrtLaunchKernelAttr) == 4, "launch attr");
static_assert(offsetof(aclrtLaunchKernelAttr, value) == 4, "launch attr value offset");
static_assert(sizeof(aclrtLaunchKernelCfg) == 16, "launch cfg");
static_assert(sizeof(aclrtTimeoutUs) == 8, "timeout us");
static_assert(ACL_RT_BINARY_LOAD_OPT_MAGIC == 2 && ACL_RT_BINARY_LOAD_OPT_LAZY_MAGIC == 2, "magic opt");
static_assert(ACL_RT_BINARY_MAGIC_ELF_AICORE == 0x43554245U, "aicore magic");
static_assert(ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING == 9, "attr id");
static_assert(ACL_ERROR_RT_KERNEL_LOOKUP == 507027, "kernel lookup");

int main()
{
    aclrtRunMode mode = ACL_HOST;
    aclrtMemcpyKind kind = ACL_MEMCPY_DEFAULT;
    aclrtCallback cb = nullptr;
    aclrtHostFunc fn = nullptr;
    aclCANNPackageVersion version{};
    aclError ret = aclInit(nullptr);
    if (ret != ACL_SUCCESS) {
        std::printf("aclInit failed: %d\n", ret);
        return 1;
    }
    ret = aclrtGetRunMode(&mode);
    if (ret != ACL_SUCCESS || (mode != ACL_HOST && mode != ACL_DEVICE)) {
        return 1;
    }
    int32_t major = 0, minor = 0, patch = 0;
    ret = aclrtGetVersion(&major, &minor, &patch);
    if (ret != ACL_SUCCESS || major != ACL_MAJOR_VERSION || minor != ACL_MINOR_VERSION) {
        return 1;
    }
    ret = aclFinalize();
    std::printf("cpp: ok (%d.%d.%d, kind %d, %zu, %d)\n", major, minor, patch, static_cast<int>(kind),
                sizeof(version), cb == nullptr && fn == nullptr);
    return ret == ACL_SUCCESS ? 0 : 1;
}
