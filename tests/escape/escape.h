/* Shared by the escape attempts (see run.sh): each gets the marker's path
 * as argv[1] and tries to create it past the policy. */
#ifndef ESCAPE_H
#define ESCAPE_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* A syscall instruction in the attempt's own code, seen by no wrapper. */
static inline long raw_syscall(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* Waits for every child, so the marker is final when the attempt exits. */
static inline void wait_children(void)
{
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

#endif
