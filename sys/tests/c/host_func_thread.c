/*
 * Host functions served by a thread the program owns: the thread subscribes
 * to a stream with aclrtSubscribeHostFunc and serves it with
 * aclrtProcessHostFunc; host functions launched on that stream run on it,
 * in order, and hold the stream until they return. The runtime's
 * documentation offers these functions on IPV350 only: the chips the
 * simulator models answer 207000 (feature not supported), which the program
 * handles by serving nothing; with ACLRT_SIM_HOST_FUNC_THREADS=compact the
 * simulator serves them as the compact runtime does (and reports that).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "common.h"

static atomic_int stop;
static pthread_t server_id;
static atomic_int wrong_thread;
static atomic_int runs;

static void note(void *arg)
{
    int expect = (int)(intptr_t)arg;
    if (!pthread_equal(pthread_self(), server_id)) {
        atomic_store(&wrong_thread, 1);
    }
    if (atomic_fetch_add(&runs, 1) != expect) {
        atomic_store(&wrong_thread, 2);
    }
}

struct server_args {
    aclrtContext ctx;
    atomic_int subscribed;
    int served;
    int failed;
};

static void *server(void *p)
{
    struct server_args *a = p;
    if (aclrtSetCurrentContext(a->ctx) != ACL_SUCCESS) {
        a->failed = 1;
        return NULL;
    }
    while (!atomic_load(&a->subscribed)) {
    }
    while (!atomic_load(&stop)) {
        aclError ret = aclrtProcessHostFunc(100);
        if (ret == ACL_SUCCESS) {
            a->served++;
        } else if (ret == ACL_ERROR_RT_THREAD_SUBSCRIBE) {
            break; /* unsubscribed */
        } else if (ret != ACL_ERROR_RT_REPORT_TIMEOUT) {
            a->failed = ret;
            break;
        }
    }
    return NULL;
}

int main(void)
{
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    CHECK_ACL(aclrtCreateStream(&stream));
    struct server_args args = {0};
    CHECK_ACL(aclrtGetCurrentContext(&args.ctx));
    if (pthread_create(&server_id, NULL, server, &args) != 0) {
        return 1;
    }
    aclError subscribed = aclrtSubscribeHostFunc((uint64_t)server_id, stream);
    if (subscribed == ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
        /* This chip does not offer the feature: the answer is stored as the
         * thread's last error, and host functions keep running on the
         * runtime's own thread. */
        int stored = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
        atomic_store(&stop, 1);
        atomic_store(&args.subscribed, 1);
        pthread_join(server_id, NULL);
        CHECK_ACL(aclrtLaunchHostFunc(stream, note, (void *)(intptr_t)0));
        CHECK_ACL(aclrtSynchronizeStream(stream));
        if (stored != ACL_ERROR_RT_FEATURE_NOT_SUPPORT || atomic_load(&runs) != 1 ||
            args.served != 0 || args.failed != 0) {
            fprintf(stderr, "stored %d, runs %d, served %d, failed %d\n", stored,
                    atomic_load(&runs), args.served, args.failed);
            return 1;
        }
        CHECK_ACL(aclrtDestroyStream(stream));
        CHECK_ACL(aclrtResetDevice(0));
        CHECK_ACL(aclFinalize());
        printf("host_func_thread: not supported (207000)\n");
        return 0;
    }
    CHECK_ACL(subscribed);
    atomic_store(&args.subscribed, 1);
    for (int i = 0; i < 5; ++i) {
        CHECK_ACL(aclrtLaunchHostFunc(stream, note, (void *)(intptr_t)i));
    }
    CHECK_ACL(aclrtSynchronizeStream(stream));
    CHECK_ACL(aclrtUnSubscribeHostFunc((uint64_t)server_id, stream));
    atomic_store(&stop, 1);
    pthread_join(server_id, NULL);
    if (args.failed != 0 || atomic_load(&wrong_thread) != 0 || args.served != 5 ||
        atomic_load(&runs) != 5) {
        fprintf(stderr, "failed %d, wrong thread %d, served %d, runs %d\n", args.failed,
                atomic_load(&wrong_thread), args.served, atomic_load(&runs));
        return 1;
    }
    /* A timeout of 0 is the runtime's 107000; a thread serving nothing 107012. */
    if (aclrtProcessHostFunc(0) != ACL_ERROR_RT_PARAM_INVALID ||
        aclrtProcessHostFunc(10) != ACL_ERROR_RT_THREAD_SUBSCRIBE) {
        return 1;
    }
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("host_func_thread: ok\n");
    return 0;
}
