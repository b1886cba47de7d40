// escape: the library's policy pointer overwritten
// expect: interpose=limit trusted=stop run=stop
/* The library's state is in the program's memory: its pointer to the
 * policy in force, set to NULL, means "no policy".  (The library file's
 * symbol table says where it is; a stripped one only makes it harder.) */
#include "escape.h"

int main(int argc, char **argv)
{
	void **enforce = library_symbol("sf_enforce");

	(void)argc;
	if (enforce)
		*enforce = NULL;
	make_marker(argv[1]);
	return 0;
}
