/* What rewriting a site costs, for bench/b_rewrite.sh.
 *   rw_sites      calls each of 16 sites (a `syscall` instruction each, in
 *                 functions of their own, with unwind information) twice
 *                 and prints the microseconds the 32 calls took
 * Under SECFILTER_REWRITE=1 each site traps once, is rewritten, and its
 * second call takes the rewritten path; under SECFILTER_REWRITE=0 both
 * calls trap.  The difference per site is a rewrite less a trap.  The
 * first rewrite of a process also maps a trampoline page. */
#include <stdio.h>

#include "bench.h"

#define SITE(n)                                                                      \
	__attribute__((noinline)) static long site##n(void)                          \
	{                                                                            \
		long r;                                                              \
		__asm__ volatile("syscall" : "=a"(r) : "0"(110L) : "rcx", "r11", "memory"); \
		return r;                                                            \
	}
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7)
SITE(8) SITE(9) SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15)

static long (*const sites[16])(void) = {
	site0, site1, site2,  site3,  site4,  site5,  site6,  site7,
	site8, site9, site10, site11, site12, site13, site14, site15,
};

int main(void)
{
	double t0 = now_ns();
	int k, i;

	for (k = 0; k < 16; k++)
		for (i = 0; i < 2; i++)
			sites[k]();
	printf("%.1f\n", (now_ns() - t0) / 1000);
	return 0;
}
