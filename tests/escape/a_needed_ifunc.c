// escape: an IFUNC resolver of the program's own library (at relocation)
// expect: interpose=limit trusted=stop run=stop
/* Linked with lib_ifunc.so, found through DT_RUNPATH=$ORIGIN, and bound
 * now (-z now, Makefile): the resolver runs while the loader relocates. */
#include "escape.h"

int lib_ifunc_anchor(void);

int main(void)
{
	return lib_ifunc_anchor();
}
