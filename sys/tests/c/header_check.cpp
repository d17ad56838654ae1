// The project's AscendCL header compiled as C++17: names, types and
// constants used the way C++ applications use them.
#include "acl/acl.h"

#include <cstdio>
#include <type_traits>

static_assert(std::is_same<aclError, int>::value, "aclError is int");
static_assert(sizeof(aclrtStream) == sizeof(void *), "handles are pointers");
static_assert(ACL_MEMCPY_DEVICE_TO_HOST == 2, "memcpy kind");
static_assert(ACL_EVENT_RECORDED_STATUS_COMPLETE == 1, "recorded status");
static_assert(ACL_ERROR_RT_STREAM_CONTEXT == 107003, "rt error code");

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
