/*
 * aclrt project header: umbrella include for the AscendCL runtime C API.
 * Programs written against the vendor API include "acl/acl.h"; this file
 * gives them the same names. Written from the published facts only.
 * Licence: MIT OR Apache-2.0.
 */
#ifndef ACLRT_PROJECT_ACL_H
#define ACLRT_PROJECT_ACL_H

#include "acl_base.h"
#include "acl_rt.h"

#endif /* ACLRT_PROJECT_ACL_H */
