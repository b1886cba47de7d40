/* secfilter compile --format=oci (tools/oci_out.c). */
#ifndef SECFILTER_OCI_OUT_H
#define SECFILTER_OCI_OUT_H

#include <stddef.h>

#include "policy.h"

/* The OCI seccomp profile that means exactly p for runc with libseccomp
 * (secfilter(7) "OTHER SYNTAXES"): 0 and *out (malloc'd, *len bytes), or -1
 * with why saying which rule cannot be written and why. */
int oci_profile(const struct sf_policy *p, char **out, size_t *len, char *why, size_t whycap);

#endif
