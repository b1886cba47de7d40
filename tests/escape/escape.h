/* Shared by the escape attempts (see run.sh): each gets the marker's path
 * as argv[1] and tries to create it past the policy.  Test programs in
 * tests/progs that make raw syscalls or clones use it too. */
#ifndef ESCAPE_H
#define ESCAPE_H

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* A race: child(i, ctx) in a forked child, waited for, until the marker
 * exists, for at most tries children or secs seconds. */
static inline void race_children(const char *marker, int tries, int secs,
				 void (*child)(int i, void *ctx), void *ctx)
{
	struct timespec t0, t;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < tries && access(marker, F_OK) < 0; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			child(i, ctx);
			_exit(127);
		}
		if (pid > 0)
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= secs)
			break;
	}
}

/* A child started on a stack of its own (clone_run) makes the marker at
 * child_marker and sets child_done, for a thread's parent to wait on. */
static const char *child_marker __attribute__((unused));
static volatile int child_done __attribute__((unused));

static inline __attribute__((noreturn)) void marker_child(void)
{
	make_marker(child_marker);
	child_done = 1;
	raw_exit(0);
}

/* Waits up to 5 s for child_done: a thread is no child to wait for. */
static inline void wait_child_done(void)
{
	int i;

	for (i = 0; i < 500 && !child_done; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* What an attempt that started marker_child returns: 2 if the start (a
 * clone's result) failed, else 0 once the child is done: a thread (it
 * sets child_done) or a process (waited for). */
static inline int marker_child_done(long start, int thread)
{
	if (start < 0)
		return 2;
	if (thread)
		wait_child_done();
	else
		wait_children();
	return 0;
}

#define CHILD_STACK_SIZE (64 << 10)

/* A new stack for a clone; its top word is fn, for a child that would
 * return through it.  Returns that top word's address. */
static inline uintptr_t *child_stack_top(void (*fn)(void))
{
	char *stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t *top = (uintptr_t *)(stack + CHILD_STACK_SIZE) - 2;

	top[0] = (uintptr_t)fn;
	return top;
}

#ifdef CLONE_ARGS_SIZE_VER0 /* <linux/sched.h> included: clone3 */
/* clone3 of ca (its stack a new one, as child_stack_top) running fn. */
static inline long clone3_run(struct clone_args *ca, void (*fn)(void))
{
	uintptr_t *top = child_stack_top(fn);

	ca->stack = (uintptr_t)(top + 2) - CHILD_STACK_SIZE;
	ca->stack_size = CHILD_STACK_SIZE - 2 * sizeof *top;
	return clone_run(SYS_clone3, (long)ca, sizeof *ca, 0, 0, 0, fn);
}
#endif

/* The path of name in $ESCAPE_DIR (where the battery's helpers are). */
static inline char *escape_path(char *buf, size_t cap, const char *name)
{
	snprintf(buf, cap, "%s/%s", getenv("ESCAPE_DIR"), name);
	return buf;
}

/* execve(args[0], args, env) in a child; waits for every child. */
static inline void exec_child(char *const args[], char *const env[])
{
	if (fork() == 0) {
		execve(args[0], args, env);
		_exit(127);
	}
	wait_children();
}

/* Runs the battery's program name with the marker as its argv[1]. */
static inline void exec_helper(const char *name, const char *marker)
{
	char prog[4096];
	char *args[] = { escape_path(prog, sizeof prog, name), (char *)marker, NULL };

	exec_child(args, NULL);
}

/* Forks children that exec by do_exec (which must not return) while
 * the marker is absent, up to 300 times or 3 s, as racer (a process
 * changing what they exec) runs; then kills racer and prints the tries. */
static inline void exec_race(const char *marker, pid_t racer, void (*do_exec)(void))
{
	time_t end = time(NULL) + 3;
	struct stat st;
	int tries;

	for (tries = 0; tries < 300 && time(NULL) < end && stat(marker, &st) < 0; tries++) {
		pid_t p = fork();
		if (p == 0)
			do_exec();
		waitpid(p, NULL, 0);
	}
	kill(racer, SIGKILL);
	wait_children();
	printf("%d tries\n", tries);
}

/* Execs /bin/true with LD_LIBRARY_PATH=. where soname is lib_evil.so:
 * 2 if the link cannot be made. */
static inline int exec_with_evil_library(const char *soname)
{
	char lib[4096];
	char *env[] = { "LD_LIBRARY_PATH=.", NULL };
	char *args[] = { "/bin/true", NULL };

	if (symlink(escape_path(lib, sizeof lib, "lib_evil.so"), soname) < 0)
		return 2;
	exec_child(args, env);
	return 0;
}

/* The preload library as the program can see it: where it is mapped
 * and its file, whose section headers and symbol table say where its
 * parts are.  0 when it is not there. */
struct lib {
	unsigned long base;
	int fd;
	Elf64_Ehdr eh;
	Elf64_Shdr sh[128];
	char names[4096];
};

static inline int library_open(struct lib *l)
{
	char line[512], path[512] = "";
	FILE *f = fopen("/proc/self/maps", "r");

	l->base = 0;
	while (f && fgets(line, sizeof line, f)) {
		unsigned long lo, off;
		char *p = strchr(line, '/');
		if (p && strstr(p, "libsecfilter.so") &&
		    sscanf(line, "%lx-%*x %*s %lx", &lo, &off) == 2 && off == 0) {
			l->base = lo;
			snprintf(path, sizeof path, "%.*s", (int)strcspn(p, "\n"), p);
			break;
		}
	}
	if (f)
		fclose(f);
	if (!l->base || (l->fd = open(path, O_RDONLY)) < 0)
		return 0;
	if (pread(l->fd, &l->eh, sizeof l->eh, 0) != sizeof l->eh || l->eh.e_shnum > 128 ||
	    pread(l->fd, l->sh, l->eh.e_shnum * sizeof l->sh[0], (off_t)l->eh.e_shoff) !=
		    (ssize_t)(l->eh.e_shnum * sizeof l->sh[0]) ||
	    pread(l->fd, l->names, sizeof l->names, (off_t)l->sh[l->eh.e_shstrndx].sh_offset) <= 0)
		return 0;
	l->names[sizeof l->names - 1] = '\0';
	return 1;
}

static inline Elf64_Shdr *library_section(struct lib *l, const char *name)
{
	int i;

	for (i = 0; i < l->eh.e_shnum; i++)
		if (l->sh[i].sh_name < sizeof l->names && !strcmp(l->names + l->sh[i].sh_name, name))
			return &l->sh[i];
	return NULL;
}

/* A `syscall; ret` in the library's region of allowed syscall
 * instructions (its section sf_region); NULL when the library is not
 * there. */
static inline void *library_gadget(void)
{
	struct lib l;
	Elf64_Shdr *r;
	unsigned char *p, *end;

	if (!library_open(&l) || !(r = library_section(&l, "sf_region")))
		return NULL;
	p = (unsigned char *)(l.base + r->sh_addr);
	for (end = p + r->sh_size; p + 3 <= end; p++)
		if (p[0] == 0x0f && p[1] == 0x05 && p[2] == 0xc3)
			return p;
	return NULL;
}

/* The address of one of the library's own (not exported) variables, from
 * the file's symbol table; NULL if not found. */
static inline void *library_symbol(const char *name)
{
	static Elf64_Sym syms[8192];
	static char str[1 << 17];
	struct lib l;
	Elf64_Shdr *st, *ss;
	size_t i, n;

	if (!library_open(&l) || !(st = library_section(&l, ".symtab")) ||
	    !(ss = library_section(&l, ".strtab")))
		return NULL;
	n = st->sh_size / sizeof syms[0];
	if (n > 8192 || pread(l.fd, syms, n * sizeof syms[0], (off_t)st->sh_offset) <= 0 ||
	    pread(l.fd, str, sizeof str - 1, (off_t)ss->sh_offset) <= 0)
		return NULL;
	for (i = 0; i < n; i++)
		if (syms[i].st_name < sizeof str - 1 && !strcmp(str + syms[i].st_name, name))
			return (void *)(l.base + syms[i].st_value);
	return NULL;
}

/* The syscall made by the instruction at gadget. */
static inline long gadget_syscall(void *gadget, long nr, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("call *%[g]"
			 : "=a"(ret)
			 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), [g] "r"(gadget)
			 : "rcx", "r11", "r8", "r9", "memory");
	return ret;
}

/* Code that runs before main (a constructor, an IFUNC resolver, a
 * preinit function) and has no argv of its own: the marker is argv[1] of
 * /proc/self/cmdline.  Raw calls: libc may not be ready, nor allowed. */
static inline int marker_from_cmdline(char *buf, size_t cap)
{
	char raw[4096];
	long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/cmdline",
			      O_RDONLY, 0, 0, 0), n, i = 0, k = 0;

	if (fd < 0)
		return -1;
	n = raw_syscall(SYS_read, fd, (long)raw, sizeof raw - 1, 0, 0, 0);
	raw_syscall(SYS_close, fd, 0, 0, 0, 0, 0);
	if (n <= 0)
		return -1;
	raw[n] = '\0';
	while (i < n && raw[i]) /* skip argv[0] */
		i++;
	for (i++; i < n && raw[i] && k + 1 < (long)cap; i++)
		buf[k++] = raw[i];
	buf[k] = '\0';
	return k ? 0 : -1;
}

#endif
