/*
 * aclAppLog, the one C-variadic function of the API: stable Rust cannot
 * define a C-variadic function, so this file (compiled by the crate's build
 * script) takes the arguments apart with vsnprintf and hands plain values to
 * the simulator's Rust code (src/log.rs, through src/raw/base.rs).
 *
 * Written for the aclrt project. Licence: MIT OR Apache-2.0.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The size of the record buffer, terminating NUL included. */
#define ACLRT_SIM_LOG_MAX 1024

/* Defined in Rust (src/raw/base.rs). */
extern int aclrtSimAppLogEnabled(int level);
extern void aclrtSimAppLogRecord(int level, const char *func, const char *file, uint32_t line,
                                 const char *body, int body_len, long tid);

/* Same prototype as the project header's declaration (acl/acl_base.h);
 * aclLogLevel is an enum of int range, passed as an int. */
void aclAppLog(int level, const char *func, const char *file, uint32_t line, const char *fmt,
               ...)
{
    if (fmt == NULL || func == NULL || file == NULL) {
        return;
    }
    if (!aclrtSimAppLogEnabled(level)) {
        return;
    }
    char body[ACLRT_SIM_LOG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    if (n < 0) {
        body[0] = '\0';
    }
    aclrtSimAppLogRecord(level, func, file, line, body, n, (long)syscall(SYS_gettid));
}
