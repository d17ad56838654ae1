/*
 * aclrt project header: allocators a program lends to a stream (the
 * runtime's `acl_rt_allocator.h`). A program describes its allocator with a
 * descriptor (the allocator object and its functions), registers it on a
 * stream, and the runtime then takes the memory of that stream's work from
 * it.
 *
 * Written for the aclrt project from the published facts about the API
 * (names and prototypes); no vendor header text. Licence: MIT OR Apache-2.0.
 */
#ifndef ACLRT_PROJECT_ACL_RT_ALLOCATOR_H
#define ACLRT_PROJECT_ACL_RT_ALLOCATOR_H

#include <stddef.h>

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The program's functions: take a block of at least `size` bytes, give one
 * back, take one near an address, and read a block's address. */
typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size,
                                               aclrtAllocatorAddr addr);
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

/* ---- descriptors -------------------------------------------------------- */
/* A new, empty descriptor; NULL on failure. */
ACL_FUNC_VISIBILITY aclrtAllocatorDesc aclrtAllocatorCreateDesc(void);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
                                                        aclrtAllocator allocator);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                              aclrtAllocatorAllocFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                             aclrtAllocatorFreeFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                                    aclrtAllocatorAllocAdviseFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
        aclrtAllocatorDesc allocatorDesc, aclrtAllocatorGetAddrFromBlockFunc func);

/* ---- registration on a stream ------------------------------------------ */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc);
/* Reads back the descriptor and functions registered on `stream`. */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorGetByStream(
        aclrtStream stream, aclrtAllocatorDesc *allocatorDesc, aclrtAllocator *allocator,
        aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
        aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
        aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorUnregister(aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLRT_PROJECT_ACL_RT_ALLOCATOR_H */
