/* Shared by the escape attempts (see run.sh): each gets the marker's path
 * as argv[1] and tries to create it past the policy. */
#ifndef ESCAPE_H
#define ESCAPE_H

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdint.h>
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

/* The forbidden act itself, from the attempt's own code. */
static inline long make_marker(const char *path)
{
	return raw_syscall(SYS_openat, AT_FDCWD, (long)path, O_CREAT | O_WRONLY, 0600, 0, 0);
}

static inline __attribute__((noreturn)) void raw_exit(int code)
{
	for (;;)
		raw_syscall(SYS_exit, code, 0, 0, 0, 0, 0);
}

/* clone, clone3 or vfork by a raw `syscall`; the child calls fn (which
 * must not return) on whatever stack it starts on, without touching the
 * parent's frame: after a clone with a new stack the compiler's idea of
 * the frame is wrong in the child. */
static inline long clone_run(long nr, long a0, long a1, long a2, long a3, long a4,
			     void (*fn)(void))
{
	register long r10 __asm__("r10") = a3;
	register long r8 __asm__("r8") = a4;
	register void (*r12)(void) __asm__("r12") = fn;
	long ret;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "and $-16, %%rsp\n\t"
			 "call *%%r12\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(ret)
			 : "0"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r12)
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
