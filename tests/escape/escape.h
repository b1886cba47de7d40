/* Shared by the escape attempts (see run.sh): each gets the marker's path
 * as argv[1] and tries to create it past the policy. */
#ifndef ESCAPE_H
#define ESCAPE_H

#include <elf.h>
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
