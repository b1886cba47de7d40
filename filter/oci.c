/* OCI seccomp profiles: not read yet (the next commit). */
#include <errno.h>

#include "internal.h"

int sf_oci_parse(struct sf_ast *ast, uint32_t src, const char *kernel_release,
		 struct sf_error *err)
{
	(void)kernel_release;
	sf_error_src(err, -EINVAL, ast, src, 0, 0, 0, "OCI profiles are not read yet");
	return -EINVAL;
}
