/* Raw calls with bad pointers in the arguments the library reads or
 * rewrites (signal masks, sigaction, clone3's struct, execve's envp).
 * The kernel answers each with EFAULT; under the library the program must
 * get the same answer, not a SIGSEGV inside the library.  Prints one line
 * per call: its name and the errno it got. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void show(const char *what, long r)
{
	printf("%-32s %s\n", what, r < 0 ? strerrorname_np(errno) : "ok");
	fflush(stdout);
}

/* With an argument, the rt_sigaction(SIGSYS) calls are left out (trusted
 * mode reads those plainly: see preload/trap/user.c). */
int main(int argc, char **argv_)
{
	int sigsys_too = argc < 2;
	/* A page that is mapped but unreadable, and the address just past
	 * a readable string that ends at a page end. */
	char *none = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *bad = (void *)8;
	struct timespec zero = { 0, 0 };
	struct { uint64_t set, size; } ps = { 8, 8 };
	uint64_t mask = 0;
	char *argv[] = { "/bin/true", NULL };
	char *envp_bad_str[] = { "A=1", NULL, NULL };
	char *tail;

	(void)argv_;
	if (none == MAP_FAILED)
		return 1;
	tail = none + 4096 - 3;
	memcpy(tail, "B=2", 3); /* no NUL before the unreadable page */
	mprotect(none + 4096, 4096, PROT_NONE);
	envp_bad_str[1] = tail;

	show("rt_sigprocmask(BLOCK, bad)", syscall(SYS_rt_sigprocmask, SIG_BLOCK, bad, NULL, 8));
	show("rt_sigprocmask(SETMASK, bad)", syscall(SYS_rt_sigprocmask, SIG_SETMASK, bad, NULL, 8));
	show("rt_sigprocmask(SETMASK, ok)", syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, NULL, 8));
	show("rt_sigaction(USR1, bad)", syscall(SYS_rt_sigaction, SIGUSR1, bad, NULL, 8));
	show("rt_sigaction(USR1, unreadable)",
	     syscall(SYS_rt_sigaction, SIGUSR1, none + 4096, NULL, 8));
	if (!sigsys_too)
		goto rest;
	show("rt_sigaction(SYS, bad)", syscall(SYS_rt_sigaction, SIGSYS, bad, NULL, 8));
	show("rt_sigaction(SYS, NULL, bad)", syscall(SYS_rt_sigaction, SIGSYS, NULL, bad, 8));
	show("rt_sigaction(SYS, NULL, ro)",
	     syscall(SYS_rt_sigaction, SIGSYS, NULL, (void *)"read-only string, 32 bytes long", 8));
rest:
	show("rt_sigsuspend(bad)", syscall(SYS_rt_sigsuspend, bad, 8));
	show("ppoll(mask bad)", syscall(SYS_ppoll, NULL, 0, &zero, bad, 8));
	show("epoll_pwait(mask bad)", syscall(SYS_epoll_pwait, -1, NULL, 1, 0, bad, 8));
	show("signalfd4(mask bad)", syscall(SYS_signalfd4, -1, bad, 8, 0));
	show("pselect6(struct bad)", syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, bad));
	show("pselect6(mask bad)", syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, &ps));
	show("clone3(bad)", syscall(SYS_clone3, bad, 88));
	show("clone3(unreadable tail)", syscall(SYS_clone3, none + 4096 - 64, 128));
	show("execve(envp bad)", syscall(SYS_execve, "/bin/true", argv, bad));
	show("execve(envp string bad)", syscall(SYS_execve, "/bin/true", argv, envp_bad_str));
	envp_bad_str[1] = bad;
	show("execve(envp pointer bad)", syscall(SYS_execve, "/bin/true", argv, envp_bad_str));
	/* The page just above the initial stack's top (the end of AT_EXECFN's
	 * string): the library reads the start's own pages below it without
	 * asking, and must still ask about this one.  Made unreadable when
	 * nothing is mapped there (else vDSO's pages may be: the bad pointer
	 * then, for the same line). */
	{
		const char *fn = (const char *)getauxval(AT_EXECFN);
		uintptr_t above = ((uintptr_t)fn + strlen(fn) + 4096) & ~(uintptr_t)4095;
		void *p = fn ? mmap((void *)above, 4096, PROT_NONE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0)
			     : MAP_FAILED;
		envp_bad_str[1] = p == (void *)above ? p : bad;
		show("execve(envp above the stack)",
		     syscall(SYS_execve, "/bin/true", argv, envp_bad_str));
	}
	return 0;
}
