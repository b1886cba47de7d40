/* Where a process start goes, in user instructions, syscalls and page
 * faults per object: runs PROG under ptrace, single-stepping every
 * instruction of it (and of the images it execs), and attributes each to
 * the mapping it executes in.  For bench/b_start.sh and the README's
 * breakdown: this VM has no hardware counters (perf stat -e instructions
 * says <not supported>) and callgrind cannot run a program that arms
 * Syscall User Dispatch (valgrind passes the prctl to the kernel, which
 * then traps valgrind's own calls).
 *   icount [-q] [NAME=VALUE...] PROG [ARG...]
 * runs PROG with the assignments added to its environment (not to this
 * program's: a policy in icount's own environment would filter icount)
 * and prints, per object: instructions, syscall instructions executed; then
 * the totals and the minor/major faults of the process.  -q: the totals
 * line only ("insns N syscalls N minflt N").
 * Counting begins where the exec does: at its event, or, when icount runs
 * under an interposing library its child inherits, at the SIGSYS of the
 * child's execve (the library's exec path belongs to the exec; the
 * child's raise before it, which the library traps too, does not). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXOBJ 64
#define MAXMAP 256

struct obj {
	char name[256];
	unsigned long insns, syscalls;
};

struct map {
	unsigned long lo, hi, off; /* off: file offset of lo */
	int obj;
};

/* ICOUNT_PROFILE=SUBSTRING: also a histogram of the file offsets executed
 * in the object whose path contains SUBSTRING ("offset count" lines on
 * stderr, for nm or addr2line). */
#define HIST (1u << 22)
static unsigned *hist;
static const char *profile;

static struct obj objs[MAXOBJ];
static int nobj;
static struct map maps[MAXMAP];
static int nmap;

static int obj_of(const char *name)
{
	int i;

	for (i = 0; i < nobj; i++)
		if (!strcmp(objs[i].name, name))
			return i;
	if (nobj == MAXOBJ)
		return MAXOBJ - 1;
	snprintf(objs[nobj].name, sizeof objs[nobj].name, "%s", name);
	return nobj++;
}

static void read_maps(pid_t pid)
{
	char path[64], line[512];
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/maps", pid);
	f = fopen(path, "r");
	nmap = 0;
	if (!f)
		return;
	while (fgets(line, sizeof line, f) && nmap < MAXMAP) {
		unsigned long lo, hi, off;
		char perms[8], name[256] = "[anon]";
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &lo, &hi, perms, &off, name) < 4)
			continue;
		if (perms[2] != 'x')
			continue;
		maps[nmap].lo = lo;
		maps[nmap].hi = hi;
		maps[nmap].off = off;
		maps[nmap].obj = obj_of(name);
		nmap++;
	}
	fclose(f);
}

static int find(pid_t pid, unsigned long ip)
{
	int i, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nmap; i++)
			if (ip >= maps[i].lo && ip < maps[i].hi) {
				unsigned long o = ip - maps[i].lo + maps[i].off;
				if (hist && strstr(objs[maps[i].obj].name, profile) && o < HIST)
					hist[o]++;
				return maps[i].obj;
			}
		read_maps(pid);
	}
	return obj_of("[unknown]");
}

static void faults(pid_t pid, unsigned long *minflt, unsigned long *majflt)
{
	char path[64], buf[2048], *p;
	FILE *f;
	int field;

	*minflt = *majflt = 0;
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, sizeof buf, f)) {
		fclose(f);
		return;
	}
	fclose(f);
	p = strrchr(buf, ')');
	/* p is at the ')' ending field 2; field N starts after N-2 more
	 * spaces: minflt is field 10, majflt 12. */
	for (field = 2; p && field < 12; field++) {
		p = strchr(p + 1, ' ');
		if (p && field + 1 == 10)
			*minflt = strtoul(p + 1, NULL, 10);
		if (p && field + 1 == 12)
			*majflt = strtoul(p + 1, NULL, 10);
	}
}

/* Whether the stop st is where the exec begins: its event (an
 * unfiltered or kernel-filtered child), or the SIGSYS of the execve or
 * execveat the library of an interposed parent traps (its exec path is
 * the exec's cost; the call instruction itself is the child's). */
static int exec_begins(pid_t pid, int st)
{
	siginfo_t si;

	if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8)))
		return 1;
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGSYS ||
	    ptrace(PTRACE_GETSIGINFO, pid, 0, &si) < 0)
		return 0;
	return si.si_syscall == SYS_execve || si.si_syscall == SYS_execveat;
}

int main(int argc, char **argv)
{
	int quiet = argc > 1 && !strcmp(argv[1], "-q");
	unsigned long total = 0, sys = 0, minflt = 0, majflt = 0;
	pid_t pid;
	int st, sig = 0, i, counting = 0;

	char **assign;
	int nassign = 0;

	profile = getenv("ICOUNT_PROFILE");
	if (profile)
		hist = calloc(HIST, sizeof *hist);
	argv += 1 + quiet;
	assign = argv;
	while (argv[0] && strchr(argv[0], '=')) {
		argv++;
		nassign++;
	}
	if (!*argv) {
		fprintf(stderr, "usage: icount [-q] [NAME=VALUE...] PROG [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		for (i = 0; i < nassign; i++)
			putenv(assign[i]);
		execvp(argv[0], argv);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL);
	ptrace(PTRACE_CONT, pid, 0, 0); /* to the exec (exec_begins) */
	for (;;) {
		struct user_regs_struct r;
		if (waitpid(pid, &st, 0) < 0)
			break;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			break;
		if (!counting && !(counting = exec_begins(pid, st))) {
			/* the fork child's own calls (raise's), trapped by the
			 * library it inherited: theirs, not the exec's */
			ptrace(PTRACE_CONT, pid, 0, WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st));
			continue;
		}
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			nmap = 0;
			sig = 0;
		} else if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			faults(pid, &minflt, &majflt);
			sig = 0;
		} else if (WIFSTOPPED(st) && WSTOPSIG(st) != SIGTRAP) {
			sig = WSTOPSIG(st); /* deliver it: SIGSYS of the catch-all */
		} else {
			sig = 0;
		}
		if (ptrace(PTRACE_GETREGS, pid, 0, &r) == 0 && !sig) {
			long w;
			int o;
			errno = 0;
			w = ptrace(PTRACE_PEEKTEXT, pid, r.rip, 0);
			o = find(pid, r.rip);
			objs[o].insns++;
			total++;
			if (errno == 0 && (w & 0xffff) == 0x050f) {
				objs[o].syscalls++;
				sys++;
			}
		}
		ptrace(PTRACE_SINGLESTEP, pid, 0, sig);
	}
	for (i = 0; hist && i < (int)HIST; i++)
		if (hist[i])
			fprintf(stderr, "%x %u\n", i, hist[i]);
	if (quiet) {
		printf("insns %lu syscalls %lu minflt %lu majflt %lu\n", total, sys, minflt, majflt);
		return 0;
	}
	for (i = 0; i < nobj; i++)
		if (objs[i].insns)
			printf("%10lu %6lu  %s\n", objs[i].insns, objs[i].syscalls, objs[i].name);
	printf("%10lu %6lu  total (instructions, syscall instructions); minflt %lu majflt %lu\n",
	       total, sys, minflt, majflt);
	return 0;
}
