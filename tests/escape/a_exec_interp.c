// escape: exec of a program whose PT_INTERP is static
// expect: interpose=stop trusted=stop run=stop
/* A program with an interpreter is not necessarily one the library's
 * loader will load: this one names a static program (h_interp). */
#include "escape.h"

int main(int argc, char **argv)
{
	(void)argc;
	exec_helper("h_interp_user", argv[1]);
	return 0;
}
