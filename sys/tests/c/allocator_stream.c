/*
 * An allocator registered on a stream: the program describes its own
 * allocator (an object and its functions), registers it on a stream, and
 * code that only has the stream gets it back and allocates through it.
 */
#include <string.h>

#include "acl/acl_rt_allocator.h"
#include "common.h"

struct pool {
    int allocated;
    int freed;
};

static void *pool_alloc(aclrtAllocator allocator, size_t size)
{
    struct pool *p = allocator;
    void *block = NULL;
    if (aclrtMalloc(&block, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        return NULL;
    }
    p->allocated++;
    return block;
}

static void pool_free(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
    struct pool *p = allocator;
    if (aclrtFree(block) == ACL_SUCCESS) {
        p->freed++;
    }
}

static void *block_addr(aclrtAllocatorBlock block) { return block; }

/* Code that knows only the stream. */
static int fill_through_stream_allocator(aclrtStream stream)
{
    aclrtAllocatorDesc desc = NULL;
    aclrtAllocator obj = NULL;
    aclrtAllocatorAllocFunc alloc = NULL;
    aclrtAllocatorFreeFunc release = NULL;
    aclrtAllocatorGetAddrFromBlockFunc addr = NULL;
    CHECK_ACL(aclrtAllocatorGetByStream(stream, &desc, &obj, &alloc, &release, NULL, &addr));
    aclrtAllocatorBlock block = alloc(obj, 4096);
    if (block == NULL) {
        return 1;
    }
    void *dev = addr(block);
    CHECK_ACL(aclrtMemsetAsync(dev, 4096, 0x11, 4096, stream));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    static unsigned char host[4096];
    CHECK_ACL(aclrtMemcpy(host, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 4096; ++i) {
        if (host[i] != 0x11) {
            return 1;
        }
    }
    release(obj, block);
    return 0;
}

int main(void)
{
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    CHECK_ACL(aclrtCreateStream(&stream));
    struct pool pool = {0, 0};
    aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
    if (desc == NULL) {
        return 1;
    }
    CHECK_ACL(aclrtAllocatorSetObjToDesc(desc, &pool));
    CHECK_ACL(aclrtAllocatorSetAllocFuncToDesc(desc, pool_alloc));
    CHECK_ACL(aclrtAllocatorSetFreeFuncToDesc(desc, pool_free));
    CHECK_ACL(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, block_addr));
    CHECK_ACL(aclrtAllocatorRegister(stream, desc));
    if (fill_through_stream_allocator(stream) != 0 || pool.allocated != 1 || pool.freed != 1) {
        fprintf(stderr, "allocated %d, freed %d\n", pool.allocated, pool.freed);
        return 1;
    }
    CHECK_ACL(aclrtAllocatorUnregister(stream));
    if (aclrtAllocatorGetByStream(stream, &desc, NULL, NULL, NULL, NULL, NULL) !=
        ACL_ERROR_INVALID_PARAM) {
        return 1;
    }
    CHECK_ACL(aclrtAllocatorDestroyDesc(desc));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("allocator_stream: ok\n");
    return 0;
}
