/* A library of the program's own whose IFUNC resolver, which the loader
 * runs while relocating, before any constructor, creates the marker
 * (a_needed_ifunc). */
#include "escape.h"

static int impl(void)
{
	return 0;
}

static int (*resolve(void))(void)
{
	char marker[4096];

	if (marker_from_cmdline(marker, sizeof marker) == 0)
		make_marker(marker);
	return impl;
}

int lib_ifunc_anchor(void) __attribute__((ifunc("resolve")));
