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
