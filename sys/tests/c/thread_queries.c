/*
 * Context and thread queries: what a thread can learn about where its work
 * goes (its device, context and default stream, the streams' ids, the id of
 * the last task it queued, the resources it may use), from the main thread
 * and from a second thread that adopts the same context.
 */
#include <pthread.h>
#include <stdio.h>

#include "common.h"

struct shared {
    aclrtContext ctx;
    aclrtStream stream;
    int32_t device;
    uint32_t task_before;
    uint32_t task_after;
    int failed;
};

static void *second_thread(void *arg)
{
    struct shared *sh = arg;
    uint32_t id = 0;
    /* A new thread has no context until it sets one. */
    aclrtContext ctx = NULL;
    if (aclrtGetCurrentContext(&ctx) != ACL_ERROR_RT_CONTEXT_NULL) {
        sh->failed = 1;
        return NULL;
    }
    if (aclrtSetCurrentContext(sh->ctx) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&ctx) != ACL_SUCCESS || ctx != sh->ctx) {
        sh->failed = 2;
        return NULL;
    }
    int32_t device = -1;
    if (aclrtGetDevice(&device) != ACL_SUCCESS || device != sh->device) {
        sh->failed = 3;
        return NULL;
    }
    /* Its own last task, not the main thread's. */
    if (aclrtGetThreadLastTaskId(&id) != ACL_SUCCESS) {
        sh->failed = 4;
        return NULL;
    }
    sh->task_before = id;
    if (aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_NO_BLOCK, sh->stream) == ACL_SUCCESS) {
        sh->failed = 5; /* a NULL callback is refused */
        return NULL;
    }
    void *dev = NULL;
    if (aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
        aclrtMemsetAsync(dev, 256, 7, 256, sh->stream) != ACL_SUCCESS ||
        aclrtGetThreadLastTaskId(&id) != ACL_SUCCESS || aclrtSynchronizeStream(sh->stream) != ACL_SUCCESS ||
        aclrtFree(dev) != ACL_SUCCESS) {
        sh->failed = 6;
        return NULL;
    }
    sh->task_after = id;
    return NULL;
}

int main(void)
{
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));

    struct shared sh = {0};
    CHECK_ACL(aclrtGetDevice(&sh.device));
    CHECK_ACL(aclrtGetCurrentContext(&sh.ctx));
    aclrtStream dflt = NULL;
    CHECK_ACL(aclrtCtxGetCurrentDefaultStream(&dflt));
    CHECK_ACL(aclrtCreateStreamWithConfig(&sh.stream, 3, ACL_STREAM_FAST_LAUNCH));

    int32_t id_default = -1, id_stream = -1, id_null = -1;
    CHECK_ACL(aclrtStreamGetId(dflt, &id_default));
    CHECK_ACL(aclrtStreamGetId(NULL, &id_null));
    CHECK_ACL(aclrtStreamGetId(sh.stream, &id_stream));
    uint32_t flags = 0, priority = 0;
    CHECK_ACL(aclrtStreamGetFlags(sh.stream, &flags));
    CHECK_ACL(aclrtStreamGetPriority(sh.stream, &priority));
    printf("device %d, default stream id %d, stream id %d (flags %#x, priority %u)\n", sh.device,
           id_default, id_stream, flags, priority);
    if (id_default != id_null || id_default == id_stream || flags != ACL_STREAM_FAST_LAUNCH ||
        priority != 3) {
        return 1;
    }

    /* The resources this thread may use: the device's, until limited. */
    uint32_t cube = 0, vector = 0;
    CHECK_ACL(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &cube));
    CHECK_ACL(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &vector));
    CHECK_ACL(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, cube / 2));
    uint32_t limited = 0;
    CHECK_ACL(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &limited));
    printf("cores: %u cube (limited to %u), %u vector\n", cube, limited, vector);
    if (cube == 0 || limited != cube / 2) {
        return 1;
    }
    CHECK_ACL(aclrtResetDeviceResLimit(0));

    /* The last task this thread queued. */
    void *dev = NULL;
    CHECK_ACL(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    uint32_t first = 0, second = 0;
    CHECK_ACL(aclrtMemsetAsync(dev, 256, 1, 256, sh.stream));
    CHECK_ACL(aclrtGetThreadLastTaskId(&first));
    CHECK_ACL(aclrtMemsetAsync(dev, 256, 2, 256, sh.stream));
    CHECK_ACL(aclrtGetThreadLastTaskId(&second));
    CHECK_ACL(aclrtSynchronizeStream(sh.stream));
    if (second != first + 1) {
        return 1;
    }

    pthread_t t;
    if (pthread_create(&t, NULL, second_thread, &sh) != 0 || pthread_join(t, NULL) != 0) {
        return 1;
    }
    printf("second thread: failed %d, last task %u then %u\n", sh.failed, sh.task_before,
           sh.task_after);
    if (sh.failed != 0 || sh.task_before != 0 || sh.task_after != second + 1) {
        return 1;
    }
    /* The main thread's last task is still its own. */
    uint32_t mine = 0;
    CHECK_ACL(aclrtGetThreadLastTaskId(&mine));
    if (mine != second) {
        return 1;
    }

    CHECK_ACL(aclrtFree(dev));
    CHECK_ACL(aclrtDestroyStream(sh.stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("thread_queries: ok\n");
    return 0;
}
