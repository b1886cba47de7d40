/* Per-call cost of syscalls, for bench/b_preload.sh.
 *   preload_calls WHAT N [R]   prints the median ns per call of R rounds
 *                              (7 unless given) of N calls
 * WHAT: libc-getppid   getppid() through libc (the wrapper when preloaded)
 *       raw-getppid    a `syscall` instruction in this program (the
 *                      catch-all when preloaded)
 *       libc-write     write(fd, "x", 1) to /dev/null through libc
 *       raw-write      the same with a `syscall` instruction
 *       libc-fputc     fputc to /dev/null through an unbuffered FILE: the
 *                      write libc makes inside itself (no wrapper sees it)
 * Time is read with clock_gettime (vDSO: not a syscall, not trapped). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static long raw3(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return ret;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "libc-getppid";
	long n = argc > 2 ? atol(argv[2]) : 1000000, i;
	int fd = open("/dev/null", O_WRONLY);
	FILE *f = fdopen(dup(fd), "w");
	int rounds = argc > 3 ? atoi(argv[3]) : 7;
	double *t = calloc(rounds > 0 ? (size_t)rounds : 1, sizeof *t);
	int r;

	if (!f || setvbuf(f, NULL, _IONBF, 0) != 0)
		return 1;
	fputc('x', f); /* the first call traps; a rewrite happens here */

	if (rounds < 1 || !t)
		return 2;
	for (r = 0; r < rounds; r++) {
		double t0 = now_ns();
		if (!strcmp(what, "libc-getppid"))
			for (i = 0; i < n; i++)
				getppid();
		else if (!strcmp(what, "raw-getppid"))
			for (i = 0; i < n; i++)
				raw3(SYS_getppid, 0, 0, 0);
		else if (!strcmp(what, "libc-write"))
			for (i = 0; i < n; i++)
				(void)!write(fd, "x", 1);
		else if (!strcmp(what, "raw-write"))
			for (i = 0; i < n; i++)
				raw3(SYS_write, fd, (long)"x", 1);
		else if (!strcmp(what, "libc-fputc"))
			for (i = 0; i < n; i++)
				fputc('x', f);
		else
			return 2;
		t[r] = (now_ns() - t0) / n;
	}
	qsort(t, (size_t)rounds, sizeof t[0], cmp_double);
	printf("%.1f\n", t[rounds / 2]);
	return 0;
}
