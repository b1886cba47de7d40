/* libunwind, loaded only by a process that enforces a policy.
 *
 * Linking it would load libunwind and liblzma into every process that
 * preloads the library, inert ones included: a startup cost the SPEC does
 * not allow ("with none set the library costs nothing measurable").  It is
 * opened in the constructor (or by the first secfilter_apply), before
 * dispatch is armed and while malloc may still be called: the reporter,
 * which may run inside a trapped malloc, must never dlopen. */
#include <dlfcn.h>

#include "sf.h"
#include "unw.h"

struct sf_unwind sf_unw;

void sf_unwind_load(void)
{
	struct sf_unwind u;
	void *h;

	if (sf_unw.step)
		return;
	h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return; /* reports go without a backtrace */
	u.getcontext = (int (*)(unw_context_t *))dlsym(h, "_Ux86_64_getcontext");
	u.init_local = (int (*)(unw_cursor_t *, unw_context_t *))dlsym(h, "_ULx86_64_init_local");
	u.init_local2 = (int (*)(unw_cursor_t *, unw_context_t *, int))dlsym(h, "_ULx86_64_init_local2");
	u.get_reg = (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))dlsym(h, "_ULx86_64_get_reg");
	u.step = (int (*)(unw_cursor_t *))dlsym(h, "_ULx86_64_step");
	if (u.getcontext && u.init_local && u.init_local2 && u.get_reg && u.step)
		sf_unw = u;
}
