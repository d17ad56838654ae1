/*
 * Shared helpers of the aclrt C sample programs: an error-checking macro in
 * the style of the AscendCL guides. The programs include only "acl/acl.h"
 * from the runtime; this file adds stdio helpers.
 */
#ifndef ACLRT_SAMPLES_COMMON_H
#define ACLRT_SAMPLES_COMMON_H

#include <stdio.h>

#include "acl/acl.h"

static const char *recent_msg(void)
{
    const char *msg = aclGetRecentErrMsg();
    return msg != NULL ? msg : "(none)";
}

#define CHECK_ACL(expr)                                                        \
    do {                                                                       \
        aclError ret_ = (expr);                                                \
        if (ret_ != ACL_SUCCESS) {                                             \
            fprintf(stderr, "%s:%d: %s failed with %d: %s\n", __FILE__,       \
                    __LINE__, #expr, ret_, recent_msg());                      \
            return 1;                                                          \
        }                                                                      \
    } while (0)

#endif /* ACLRT_SAMPLES_COMMON_H */
