/*
 * Device information from several threads at once: each thread binds a
 * device and reads its attributes, capabilities, status and utilisation;
 * every thread must see the same figures for the same device, and the
 * figures must agree with each other.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common.h"

#define THREADS 8

struct figures {
    int64_t aicore, vector, aicpu, l2, memory, arch;
    int32_t task_update;
    aclrtDeviceStatus status;
    int32_t cube_busy;
    int32_t compatible;
    aclrtFloatOverflowMode mode;
};

struct job {
    int32_t device;
    struct figures f;
    int failed;
};

static int read_figures(int32_t device, struct figures *f)
{
    memset(f, 0, sizeof *f);
    uint32_t d = (uint32_t)device;
    if (aclrtGetDeviceInfo(d, ACL_DEV_ATTR_AICORE_CORE_NUM, &f->aicore) != ACL_SUCCESS ||
        aclrtGetDeviceInfo(d, ACL_DEV_ATTR_VECTOR_CORE_NUM, &f->vector) != ACL_SUCCESS ||
        aclrtGetDeviceInfo(d, ACL_DEV_ATTR_AICPU_CORE_NUM, &f->aicpu) != ACL_SUCCESS ||
        aclrtGetDeviceInfo(d, ACL_DEV_ATTR_L2_CACHE_SIZE, &f->l2) != ACL_SUCCESS ||
        aclrtGetDeviceInfo(d, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &f->memory) != ACL_SUCCESS ||
        aclrtGetDeviceInfo(d, ACL_DEV_ATTR_NPU_ARCH, &f->arch) != ACL_SUCCESS) {
        return 1;
    }
    if (aclrtGetDeviceCapability(device, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
                                 &f->task_update) != ACL_SUCCESS ||
        aclrtQueryDeviceStatus(device, &f->status) != ACL_SUCCESS) {
        return 2;
    }
    aclrtUtilizationInfo u;
    memset(&u, 0, sizeof u);
    if (aclrtGetDeviceUtilizationRate(device, &u) != ACL_SUCCESS || u.memoryUtilization != -1) {
        return 3;
    }
    f->cube_busy = u.cubeUtilization;
    /* Kernels built for the same architecture family run here. */
    const char *family = f->arch == 2201 ? "Ascend910B1" : "Ascend310P1";
    if (aclrtCheckArchCompatibility(family, &f->compatible) != ACL_SUCCESS ||
        aclrtGetDeviceSatMode(&f->mode) != ACL_SUCCESS) {
        return 4;
    }
    return 0;
}

static void *worker(void *arg)
{
    struct job *job = arg;
    if (aclrtSetDevice(job->device) != ACL_SUCCESS) {
        job->failed = 10;
        return NULL;
    }
    for (int round = 0; round < 20 && job->failed == 0; ++round) {
        job->failed = read_figures(job->device, &job->f);
    }
    if (aclrtResetDevice(job->device) != ACL_SUCCESS && job->failed == 0) {
        job->failed = 11;
    }
    return NULL;
}

int main(void)
{
    CHECK_ACL(aclInit(NULL));
    uint32_t count = 0;
    CHECK_ACL(aclrtGetDeviceCount(&count));
    if (count == 0) {
        return 1;
    }

    struct job jobs[THREADS];
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; ++i) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].device = (int32_t)((uint32_t)i % count);
        if (pthread_create(&threads[i], NULL, worker, &jobs[i]) != 0) {
            return 1;
        }
    }
    for (int i = 0; i < THREADS; ++i) {
        if (pthread_join(threads[i], NULL) != 0) {
            return 1;
        }
    }

    for (int i = 0; i < THREADS; ++i) {
        const struct figures *f = &jobs[i].f;
        if (jobs[i].failed != 0) {
            printf("thread %d failed at step %d: %s\n", i, jobs[i].failed, recent_msg());
            return 1;
        }
        /* The same device reads the same everywhere. */
        const struct figures *first = &jobs[(uint32_t)jobs[i].device].f;
        if (memcmp(f, first, sizeof *f) != 0) {
            printf("thread %d disagrees with thread %d\n", i, jobs[i].device);
            return 1;
        }
        /* Figures that must hang together. */
        if (f->aicore <= 0 || f->vector <= 0 || f->aicpu <= 0 || f->l2 <= 0 || f->memory <= 0 ||
            f->status != ACL_RT_DEVICE_STATUS_NORMAL || f->compatible != 1 ||
            (f->task_update != ACL_DEV_FEATURE_SUPPORT && f->task_update != ACL_DEV_FEATURE_NOT_SUPPORT) ||
            f->cube_busy < -1 || f->cube_busy > 100) {
            printf("thread %d: implausible figures\n", i);
            return 1;
        }
    }
    const struct figures *f = &jobs[0].f;
    printf("%u device(s) of %s: %lld AI cores, %lld vector cores, %lld AI CPUs, L2 %lld bytes, "
           "%lld bytes of memory, arch %lld, overflow mode %d\n",
           count, aclrtGetSocName(), (long long)f->aicore, (long long)f->vector, (long long)f->aicpu,
           (long long)f->l2, (long long)f->memory, (long long)f->arch, (int)f->mode);
    CHECK_ACL(aclFinalize());
    printf("device_info_threads: ok\n");
    return 0;
}
