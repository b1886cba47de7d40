// escape: the executable's DT_PREINIT_ARRAY creates the file
// expect: interpose=limit trusted=stop run=stop
/* Preinit functions run before any library's constructor, the preloaded
 * library's included: in interposition mode nothing is armed yet (a limit,
 * doc/security.md).  Trusted mode's filter is in force since la_version, before
 * the loader even maps the program's libraries. */
#include "escape.h"

static void early(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc > 1)
		make_marker(argv[1]);
}

__attribute__((section(".preinit_array"), used)) static void (*const preinit)(int, char **, char **) = early;

int main(void)
{
	return 0;
}
