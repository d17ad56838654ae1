/*
 * IPC memory between two processes: the parent exports device memory by
 * key and allows the child's pid; the child (a second process with its own
 * runtime) imports it, checks the parent's bytes, writes its own, and
 * closes it; the parent then reads the child's bytes. A second child, not
 * on the trustlist, is refused.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define N 65536

static int child(int key_fd, int done_fd)
{
    char key[128] = {0};
    if (read(key_fd, key, sizeof key) <= 0) {
        return 2;
    }
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    void *p = NULL;
    CHECK_ACL(aclrtIpcMemImportByKey(&p, key, 0));
    static unsigned char buf[N];
    CHECK_ACL(aclrtMemcpy(buf, N, p, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; ++i) {
        if (buf[i] != (unsigned char)i) {
            fprintf(stderr, "child: byte %d is %u\n", i, buf[i]);
            return 3;
        }
    }
    CHECK_ACL(aclrtMemset(p, N, 0xC3, N));
    CHECK_ACL(aclrtIpcMemClose(key));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    if (write(done_fd, "x", 1) != 1) {
        return 4;
    }
    return 0;
}

/* A process not on the trustlist: its import is refused. */
static int stranger(int key_fd)
{
    char key[128] = {0};
    if (read(key_fd, key, sizeof key) <= 0) {
        return 2;
    }
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    void *p = NULL;
    aclError ret = aclrtIpcMemImportByKey(&p, key, 0);
    if (ret != ACL_ERROR_RT_NO_PERMISSION) {
        fprintf(stderr, "stranger: import answered %d\n", ret);
        return 3;
    }
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    return 0;
}

int main(void)
{
    int key_pipe[2], done_pipe[2], stranger_pipe[2];
    if (pipe(key_pipe) != 0 || pipe(done_pipe) != 0 || pipe(stranger_pipe) != 0) {
        return 1;
    }
    pid_t other = fork();
    if (other < 0) {
        return 1;
    }
    if (other == 0) {
        _exit(stranger(stranger_pipe[0]));
    }
    pid_t pid = fork();
    if (pid < 0) {
        return 1;
    }
    if (pid == 0) {
        _exit(child(key_pipe[0], done_pipe[1]));
    }
    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    void *p = NULL;
    CHECK_ACL(aclrtMalloc(&p, N, ACL_MEM_MALLOC_HUGE_FIRST));
    static unsigned char buf[N];
    for (int i = 0; i < N; ++i) {
        buf[i] = (unsigned char)i;
    }
    CHECK_ACL(aclrtMemcpy(p, N, buf, N, ACL_MEMCPY_HOST_TO_DEVICE));
    char key[128] = {0};
    CHECK_ACL(aclrtIpcMemGetExportKey(p, N, key, sizeof key, 0));
    int32_t child_pid = (int32_t)pid;
    CHECK_ACL(aclrtIpcMemSetImportPid(key, &child_pid, 1));
    if (write(key_pipe[1], key, sizeof key) != (ssize_t)sizeof key ||
        write(stranger_pipe[1], key, sizeof key) != (ssize_t)sizeof key) {
        return 1;
    }
    int other_status = 0;
    waitpid(other, &other_status, 0);
    if (!WIFEXITED(other_status) || WEXITSTATUS(other_status) != 0) {
        fprintf(stderr, "the stranger was not refused: status %d\n", other_status);
        return 1;
    }
    char done = 0;
    if (read(done_pipe[0], &done, 1) != 1) {
        fprintf(stderr, "the child ended without importing\n");
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "child failed: status %d\n", status);
        return 1;
    }
    CHECK_ACL(aclrtMemcpy(buf, N, p, N, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < N; ++i) {
        if (buf[i] != 0xC3) {
            fprintf(stderr, "parent: byte %d is %u, not the child's\n", i, buf[i]);
            return 1;
        }
    }
    CHECK_ACL(aclrtIpcMemClose(key));
    CHECK_ACL(aclrtFree(p));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    printf("ipc_processes: ok\n");
    return 0;
}
