/* A library that makes the forbidden call the moment the loader lets it
 * run code: as an audit module (la_version, before any object is
 * loaded), from an IFUNC resolver (while it is relocated) and from its
 * constructor.  The marker is "marker" in the current directory (the
 * attempt's run directory). */
#include <link.h>

#include "escape.h"

static void act(void)
{
	make_marker("marker");
}

unsigned int la_version(unsigned int version)
{
	act();
	return version;
}

static int impl(void)
{
	return 0;
}

static int (*resolve(void))(void)
{
	act();
	return impl;
}

int evil_ifunc(void) __attribute__((ifunc("resolve")));
int (*volatile evil_ref)(void) = evil_ifunc; /* a relocation that calls it */

__attribute__((constructor)) static void ctor(void)
{
	act();
}
