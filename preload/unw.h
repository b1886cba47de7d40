/* The few libunwind entry points the reporter uses, found with dlsym
 * (unw.c).  All NULL when libunwind could not be loaded. */
#ifndef SECFILTER_UNWIND_H
#define SECFILTER_UNWIND_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>

struct sf_unwind {
	int (*getcontext)(unw_context_t *);
	int (*init_local)(unw_cursor_t *, unw_context_t *);
	int (*init_local2)(unw_cursor_t *, unw_context_t *, int);
	int (*get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
	int (*step)(unw_cursor_t *);
};

extern struct sf_unwind sf_unw;
void sf_unwind_load(void);

#endif
