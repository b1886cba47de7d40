/* The settings (SECFILTER_*), as the constructor read them (entry/init.c):
 * what every floor above consults. */
#include "state.h"

struct sf_settings sf_cfg SF_HOT;

/* The environment the process started with, as the loader hands it to
 * every constructor: the copy in an audit namespace has no libc, hence
 * no environ (base.h), and in the program's namespace libc's initializer
 * may run after this library's. */
char **sf_env_start SF_HOT;

/* An address on the main thread's stack (its initial environment array),
 * 0 before the constructor: where the rewriter keeps away from. */
uintptr_t sf_main_stack_hint(void)
{
	return (uintptr_t)sf_env_start;
}

/* Whether LD_PRELOAD names a secfilter library (by its file name: the
 * copy rtld will load from it is not there yet to ask): the constructor
 * refuses interposition without it, trusted mode's listener leaves the
 * preloaded copy's wrappers to report what Landlock denies. */
int sf_preloaded(void)
{
	static const char base[] = "libsecfilter";
	char **ep;

	for (ep = sf_env_start; ep && *ep; ep++) {
		const char *s;
		if (!sf_startswith(*ep, "LD_PRELOAD="))
			continue;
		for (s = *ep + 11; *s; s++)
			if ((s == *ep + 11 || s[-1] == '/' || s[-1] == ':' || s[-1] == ' ') &&
			    sf_startswith(s, base))
				return 1;
	}
	return 0;
}
