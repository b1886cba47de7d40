/* sf_mem_* for the tool and the tests: plain calloc/free.  Never linked
 * into libsecfilter.so (see mem.h). */
#include <stdlib.h>

#include "mem.h"

void *sf_mem_alloc(size_t n)
{
	return calloc(1, n ? n : 1);
}

void sf_mem_free(void *p, size_t n)
{
	(void)n;
	free(p);
}
