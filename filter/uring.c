/* Which io_uring operation does the work of a syscall (uring.h). */
#include <string.h>

#include "uring.h"

/* Of the operations doing it, the one with the shortest name: READ, not
 * READ_FIXED or READ_MULTISHOT, is the one a message should name. */
const struct sf_uring_op *sf_uring_op_for(unsigned nr)
{
	const struct sf_uring_op *best = 0;
	unsigned i, k;

	for (i = 0; i < sf_uring_op_count; i++)
		for (k = 0; k < sf_uring_ops[i].ncalls; k++)
			if (sf_uring_ops[i].calls[k] == nr &&
			    (!best || strlen(sf_uring_ops[i].name) < strlen(best->name)))
				best = &sf_uring_ops[i];
	return best;
}
