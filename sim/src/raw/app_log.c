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
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The size of the record buffer, terminating NUL included. */
#define ACLRT_SIM_LOG_MAX 1024

/* Defined in Rust (src/raw/base.rs). */
extern int aclrtSimAppLogEnabled(int level);
extern void aclrtSimAppLogRecord(int level, const char *func, const char *file, uint32_t line,
                                 const char *body, int body_len, long tid);

/* Whether fmt has a %n conversion. The runtime formats with a bounded
 * formatter that refuses %n (the record is replaced by "aclAppLog format
 * string is invalid"); vsnprintf would store through the argument instead. */
static int has_n_conversion(const char *fmt)
{
    for (const char *p = fmt; *p != '\0'; ++p) {
        if (*p != '%') {
            continue;
        }
        ++p;
        if (*p == '%') {
            continue;
        }
        while (*p != '\0' && strchr("-+ #0'123456789.*$hlLqjzt", *p) != NULL) {
            ++p;
        }
        if (*p == 'n') {
            return 1;
        }
        if (*p == '\0') {
            break;
        }
    }
    return 0;
}

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
    int n = -1;
    body[0] = '\0';
    if (!has_n_conversion(fmt)) {
        va_list ap;
        va_start(ap, fmt);
        n = vsnprintf(body, sizeof body, fmt, ap);
        va_end(ap);
    }
    if (n < 0) {
        body[0] = '\0';
    }
    aclrtSimAppLogRecord(level, func, file, line, body, n, (long)syscall(SYS_gettid));
}
