// escape: a constructor of the program's own library (DT_NEEDED, DT_RPATH)
// expect: interpose=limit trusted=stop run=stop
/* Linked with lib_ctor.so, found through DT_RPATH=$ORIGIN (Makefile). */
#include "escape.h"

int lib_ctor_anchor(void);

int main(void)
{
	return lib_ctor_anchor();
}
