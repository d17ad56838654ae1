/*
 * Virtual memory: reserve an address range, allocate physical memory in
 * granules, map it (twice: both ranges see the same bytes), copy through
 * the mappings, set and read the access, unmap before releasing.
 */
#include <string.h>

#include "common.h"

int main(void)
{
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_HUGE;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CHECK_ACL(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &gran));
    void *va = NULL;
    CHECK_ACL(aclrtReserveMemAddress(&va, 2 * gran, 0, NULL, 0));
    aclrtDrvMemHandle phys = NULL;
    CHECK_ACL(aclrtMallocPhysical(&phys, gran, &prop, 0));
    void *hi = (char *)va + gran;
    CHECK_ACL(aclrtMapMem(va, gran, 0, phys, 0));
    CHECK_ACL(aclrtMapMem(hi, gran, 0, phys, 0));

    aclrtMemAccessDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    desc.location.id = 0;
    CHECK_ACL(aclrtMemSetAccess(va, gran, &desc, 1));
    aclrtMemLocation loc;
    uint64_t flags = 0;
    CHECK_ACL(aclrtMemGetAccess(va, &loc, &flags));
    if (flags != ACL_RT_MEM_ACCESS_FLAGS_READWRITE || loc.type != ACL_MEM_LOCATION_TYPE_DEVICE) {
        return 1;
    }

    static char in[1024], out[1024];
    for (int i = 0; i < 1024; ++i) {
        in[i] = (char)(i * 7);
    }
    CHECK_ACL(aclrtMemcpy(va, 1024, in, 1024, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ACL(aclrtMemcpy(out, 1024, hi, 1024, ACL_MEMCPY_DEVICE_TO_HOST));
    if (memcmp(in, out, 1024) != 0) {
        fprintf(stderr, "the two mappings of one physical allocation differ\n");
        return 1;
    }
    /* Release with mappings left is refused: unmap first. */
    if (aclrtReleaseMemAddress(va) == ACL_SUCCESS) {
        fprintf(stderr, "a reservation with mappings was released\n");
        return 1;
    }
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    CHECK_ACL(aclrtUnmapMem(hi));
    CHECK_ACL(aclrtUnmapMem(va));
    CHECK_ACL(aclrtReleaseMemAddress(va));
    CHECK_ACL(aclrtFreePhysical(phys));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("virtual_memory: ok (granularity %zu)\n", gran);
    return 0;
}
