/* What a libc function returns, and what errno it leaves, when the syscall
 * it makes is answered with an errno instead of running -- for every
 * function the library wraps (preload/interpose/wrappers.tbl, read at run time, and
 * the hand-written ones of wrap.c).
 *
 *   act_wrapped kernel  WRAPPERS.TBL [ERRNO]   glibc's own functions under a
 *                                              libseccomp filter (the oracle)
 *   act_wrapped library WRAPPERS.TBL [ERRNO]   under libsecfilter.so (started
 *                                              with the policy `*: 1`), which
 *                                              narrows with secfilter_apply
 *
 * Each function is called in a child of its own, after its syscall was
 * given `return ERRNO` (default ENOSYS); the child stores "ret errno" in
 * shared memory, so that it needs no syscall after the call.  Arguments
 * are harmless if the call ever ran: paths are "", descriptors and ids
 * are huge, pointers lead to a scratch area.  One line per function:
 *   NAME SYSCALL RET ERRNO    (or NAME SYSCALL signal N)
 * The test compares both modes line by line (tests/e2e/t_lib_actions.sh). */
#include <dlfcn.h>
#include <errno.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SENTINEL 4321
#define SCRATCH (1 << 16)
#define HUGE 0x7ffffff0L

struct fn {
	char name[64], sys[64];
	int wide;       /* returns 64 bits (ssize_t, off_t, pointers) */
	int nparams;
	int ptr[6];     /* parameter i is a pointer */
};

static char *scratch;

/* preload/interpose/wrappers.tbl: name | ret | params | syscall(args) [| cancel] */
static int parse_line(char *line, struct fn *f)
{
	char *col[5], *s = line, *p;
	int n = 0;

	if (*line == '#' || *line == '\n' || *line == '\0')
		return 0;
	while (n < 5 && (col[n] = strsep(&s, "|")) != NULL)
		n++;
	if (n < 4)
		return 0;
	memset(f, 0, sizeof(*f));
	sscanf(col[0], " %63s", f->name);
	sscanf(col[3], " %63[a-z0-9_]", f->sys);
	f->wide = strstr(col[1], "*") || strstr(col[1], "ssize_t") || strstr(col[1], "off_t") ||
		  strstr(col[1], "long");
	if (!strstr(col[2], "void") || strchr(col[2], '*'))
		for (p = col[2]; p && n < 100; n++) {
			char *q = strsep(&p, ",");
			if (f->nparams < 6)
				f->ptr[f->nparams++] = strchr(q, '*') || strchr(q, '[');
		}
	return 1;
}

/* The wrap.c functions, as glibc declares them (variadic ones with their
 * optional argument). */
static long call_handwritten(const char *name, void *fn, int *known)
{
	char *b = scratch;

	*known = 1;
	if (!strcmp(name, "open") || !strcmp(name, "open64"))
		return ((int (*)(const char *, int, ...))fn)(b, 0x41, 0600);
	if (!strcmp(name, "openat") || !strcmp(name, "openat64"))
		return ((int (*)(int, const char *, int, ...))fn)(-100, b, 0, 0);
	if (!strcmp(name, "fcntl") || !strcmp(name, "fcntl64"))
		return ((int (*)(int, int, ...))fn)((int)HUGE, 1 /* F_GETFD */, 0);
	if (!strcmp(name, "ioctl"))
		return ((int (*)(int, unsigned long, ...))fn)((int)HUGE, 0x5401, b);
	if (!strcmp(name, "prctl"))
		return ((int (*)(int, ...))fn)(16 /* PR_GET_NAME */, b, 0, 0, 0);
	if (!strcmp(name, "syscall"))
		return ((long (*)(long, ...))fn)(SYS_getppid);
	if (!strcmp(name, "isatty") || !strcmp(name, "fstat") || !strcmp(name, "fstat64"))
		return ((int (*)(int, void *))fn)(0, b);
	if (!strcmp(name, "clock_nanosleep"))
		return ((int (*)(int, int, void *, void *))fn)(0, 0, b, b);
	if (!strcmp(name, "utimensat"))
		return ((int (*)(int, const char *, void *, int))fn)(-100, b, NULL, 0);
	if (!strcmp(name, "sigprocmask") || !strcmp(name, "pthread_sigmask"))
		return ((int (*)(int, void *, void *))fn)(SIG_BLOCK, b, b + 256);
	if (!strcmp(name, "sigsetmask") || !strcmp(name, "sigblock"))
		return ((int (*)(int))fn)(0);
	if (!strcmp(name, "siggetmask"))
		return ((int (*)(void))fn)();
	if (!strcmp(name, "_exit") || !strcmp(name, "_Exit")) /* exit_group refused: exit */
		((void (*)(int))fn)(5);
	if (!strcmp(name, "statx")) /* fstatat(AT_FDCWD, "") if it falls back: ENOENT */
		return ((int (*)(int, const char *, int, unsigned, void *))fn)(-100, b, 0, 0x7ff,
									      b + 1024);
	if (!strcmp(name, "mmap")) /* an anonymous page: harmless */
		return (long)((void *(*)(void *, size_t, int, int, int, long))fn)(
			NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!strcmp(name, "mmap64")) /* an offset glibc refuses itself */
		return (long)((void *(*)(void *, size_t, int, int, int, long))fn)(
			NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 1);
	*known = 0;
	return 0;
}

static const char *const handwritten[][2] = {
	{ "open", "openat" }, { "open64", "openat" }, { "openat", "openat" },
	{ "openat64", "openat" }, { "fcntl", "fcntl" }, { "fcntl64", "fcntl" },
	{ "ioctl", "ioctl" }, { "prctl", "prctl" }, { "syscall", "getppid" },
	{ "isatty", "ioctl" }, { "fstat", "newfstatat" }, { "fstat64", "newfstatat" },
	{ "clock_nanosleep", "clock_nanosleep" }, { "utimensat", "utimensat" },
	{ "sigprocmask", "rt_sigprocmask" }, { "pthread_sigmask", "rt_sigprocmask" },
	{ "sigsetmask", "rt_sigprocmask" }, { "sigblock", "rt_sigprocmask" },
	{ "siggetmask", "rt_sigprocmask" },
	{ "statx", "statx" }, { "mmap", "mmap" }, { "mmap64", "mmap" },
	{ "_exit", "exit_group" }, { "_Exit", "exit_group" },
};

static int narrow(int library, const char *sys, int e)
{
	if (library) {
		int (*apply)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT,
									    "secfilter_apply");
		char text[128];
		snprintf(text, sizeof text, "%s: return %d", sys, e);
		return apply && apply(text) == 0 ? 0 : -1;
	} else {
		scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
		int nr = seccomp_syscall_resolve_name(sys);
		if (!ctx || nr < 0 || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(e), nr, 0) ||
		    seccomp_load(ctx))
			return -1;
		return 0;
	}
}

static void run(int library, const struct fn *f, int e, long *shared)
{
	void *fn = dlsym(RTLD_DEFAULT, f->name);
	pid_t pid;
	int status, known, i;
	long a[6];

	if (!fn) {
		printf("%s %s missing\n", f->name, f->sys);
		return;
	}
	fflush(stdout);
	shared[0] = shared[1] = shared[2] = 0;
	pid = fork();
	if (pid == 0) {
		long r;
		if (narrow(library, f->sys, e) < 0)
			syscall(SYS_exit_group, 3);
		for (i = 0; i < 6; i++)
			a[i] = i < f->nparams && f->ptr[i] ? (long)(scratch + 1024 * i) : HUGE;
		errno = SENTINEL;
		r = call_handwritten(f->name, fn, &known);
		if (!known)
			r = ((long (*)(long, long, long, long, long, long))fn)(a[0], a[1], a[2], a[3],
									      a[4], a[5]);
		shared[0] = f->wide ? r : (long)(int)r;
		shared[1] = errno;
		shared[2] = 1;
		syscall(SYS_exit_group, 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		perror("fork/waitpid");
		exit(2);
	}
	if (WIFSIGNALED(status))
		printf("%s %s signal %d\n", f->name, f->sys, WTERMSIG(status));
	else if (!shared[2])
		printf("%s %s status %d\n", f->name, f->sys, WEXITSTATUS(status));
	else
		printf("%s %s %ld %ld\n", f->name, f->sys, shared[0], shared[1]);
}

int main(int argc, char **argv)
{
	long *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int library, e = argc > 3 ? atoi(argv[3]) : ENOSYS;
	char line[512];
	struct fn f;
	unsigned i;
	FILE *tbl;

	if (argc < 3 || (strcmp(argv[1], "kernel") && strcmp(argv[1], "library"))) {
		fprintf(stderr, "usage: act_wrapped kernel|library WRAPPERS.TBL [ERRNO]\n");
		return 2;
	}
	library = !strcmp(argv[1], "library");
	scratch = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	tbl = fopen(argv[2], "r");
	if (!tbl || shared == MAP_FAILED || scratch == MAP_FAILED) {
		perror(argv[2]);
		return 2;
	}
	while (fgets(line, sizeof line, tbl))
		if (parse_line(line, &f))
			run(library, &f, e, shared);
	fclose(tbl);
	for (i = 0; i < sizeof handwritten / sizeof handwritten[0]; i++) {
		memset(&f, 0, sizeof f);
		snprintf(f.name, sizeof f.name, "%s", handwritten[i][0]);
		snprintf(f.sys, sizeof f.sys, "%s", handwritten[i][1]);
		f.wide = !strcmp(f.name, "syscall") || !strncmp(f.name, "mmap", 4);
		run(library, &f, e, shared);
	}
	return 0;
}
