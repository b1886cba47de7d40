// escape: a static binary started directly
// expect: interpose=limit trusted=limit run=stop
/* LD_PRELOAD cannot reach a static binary: only `secfilter run` (which
 * gives it the kernel filter) holds it.  The exec attempts run this one
 * from a filtered process: there the kernel filter installed before the
 * exec must stop it. */
#include "escape.h"

int main(int argc, char **argv)
{
	(void)argc;
	make_marker(argv[1]);
	return 0;
}
