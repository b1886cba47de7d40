/* What the benchmark programs share: a clock and the order for medians. */
#ifndef SECFILTER_BENCH_H
#define SECFILTER_BENCH_H

#include <time.h>

/* CLOCK_MONOTONIC through the vDSO: not a syscall, so nothing for a
 * filter or the library to see. */
static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* For qsort over doubles. */
static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#endif
