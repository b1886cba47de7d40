/* A library of the program's own (DT_NEEDED, found on its RPATH or
 * RUNPATH), initialized before a preloaded library: its constructor
 * creates the marker (a_needed_ctor_*). */
#include "escape.h"

__attribute__((constructor)) static void ctor(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc > 1)
		make_marker(argv[1]);
}

int lib_ctor_anchor(void)
{
	return 0;
}
