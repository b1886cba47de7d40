/* execve/execveat: the new image must get the library and the current
 * policy even when the program cleared or edited its environment.
 *
 * The new environment is the program's minus LD_PRELOAD and SECFILTER_*,
 * plus LD_PRELOAD=<this library>[:the program's other preloads],
 * SECFILTER_POLICY=<canonical text of the current policy> and the current
 * action, log and mode (and run's SECFILTER_SUPERVISOR, if it was given).
 * It is built in raw-mapped memory, never with malloc: this also runs in
 * vfork and posix_spawn children, which share the parent's heap.
 *
 * LD_PRELOAD cannot reach a static binary, nor a set-ID one or one with
 * file capabilities (the loader ignores it in secure mode), nor one that
 * is not x86-64, nor one we cannot read to tell: those get the policy as a
 * kernel filter, installed right before the execve. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "sf.h"

enum target { T_PRELOAD, T_KERNEL, T_FAILS };

struct exec_req {
	long nr, dirfd, flags;
	const char *path;
	char *const *argv, *const *envp;
};

static void read_req(const struct sf_call *c, struct exec_req *r)
{
	int at = c->nr == SYS_execveat;

	r->nr = c->nr;
	r->dirfd = at ? (long)c->a[0] : AT_FDCWD;
	r->path = (const char *)c->a[at ? 1 : 0];
	r->argv = (char *const *)c->a[at ? 2 : 1];
	r->envp = (char *const *)c->a[at ? 3 : 2];
	r->flags = at ? (long)c->a[4] : 0;
}

/* An ELF image is dynamic when it names an interpreter.  One that is not
 * x86-64 (i386, x32, another machine through binfmt_misc) cannot load
 * this library, and the policy does not speak its syscalls: the kernel
 * filter's architecture check kills it. */
static enum target elf_kind(long fd, const unsigned char *head, long n)
{
	const Elf64_Ehdr *eh = (const void *)head;
	Elf64_Phdr ph;
	unsigned i;

	if (n < (long)sizeof *eh)
		return T_PRELOAD; /* not an image the kernel runs: it says ENOEXEC */
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_machine != EM_X86_64)
		return T_KERNEL;
	for (i = 0; i < eh->e_phnum && i < 256; i++) {
		long off = (long)eh->e_phoff + (long)i * eh->e_phentsize;
		if (sf_sys(SYS_pread64, fd, (long)&ph, sizeof ph, off, 0, 0) != sizeof ph)
			return T_KERNEL;
		if (ph.p_type == PT_INTERP)
			return T_PRELOAD;
	}
	return T_KERNEL;
}

static enum target probe(long dirfd, const char *path, long flags, int depth);

/* "#!interpreter": what matters is the interpreter. */
static enum target script_kind(const unsigned char *head, long n, int depth)
{
	char interp[256];
	long i = 2, k = 0;

	while (i < n && (head[i] == ' ' || head[i] == '\t'))
		i++;
	while (i < n && k < (long)sizeof interp - 1 && head[i] != ' ' &&
	       head[i] != '\t' && head[i] != '\n')
		interp[k++] = (char)head[i++];
	interp[k] = '\0';
	if (k == 0)
		return T_FAILS;
	if (depth >= 4) /* deeper than we look: cannot tell, fail closed */
		return T_KERNEL;
	return probe(AT_FDCWD, interp, 0, depth + 1);
}

/* A descriptor we cannot read (O_PATH, as fexecve may get), reopened for
 * reading; -errno when that fails too. */
static long reopen_readable(long fd)
{
	char path[32];
	struct sf_buf b = { path, 0, sizeof path };

	sf_puts(&b, "/proc/self/fd/");
	sf_putu(&b, (uint64_t)fd);
	return sf_sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
}

static enum target probe_fd(long fd, int depth, int reopened)
{
	unsigned char head[256];
	struct stat st;
	enum target t;
	long n, rfd;

	if (sf_sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) < 0 || !S_ISREG(st.st_mode))
		return T_FAILS;
	/* The loader ignores LD_PRELOAD in a program that gains privileges:
	 * set-ID bits, and file capabilities (ping...). */
	if ((st.st_mode & (S_ISUID | S_ISGID)) ||
	    sf_sys(SYS_fgetxattr, fd, (long)"security.capability", 0, 0, 0, 0) >= 0)
		return T_KERNEL;
	n = sf_sys(SYS_pread64, fd, (long)head, sizeof head, 0, 0, 0);
	if (n < 0) {
		/* Executable but not readable through this descriptor: look
		 * through another, or fail closed. */
		if (reopened || (rfd = reopen_readable(fd)) < 0)
			return T_KERNEL;
		t = probe_fd(rfd, depth, 1);
		sf_sys(SYS_close, rfd, 0, 0, 0, 0, 0);
		return t;
	}
	if (n >= 2 && head[0] == '#' && head[1] == '!')
		return script_kind(head, n, depth);
	if (n >= 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F')
		return elf_kind(fd, head, n);
	return T_PRELOAD;
}

/* Whether execve would find the file executable: the effective ids
 * decide (faccessat without AT_EACCESS asks about the real ones, and a
 * process whose real uid cannot execute a static binary its effective uid
 * can would run it unfiltered).  0 or -errno; *legacy when the kernel has
 * no faccessat2 (before 5.8) and AT_EMPTY_PATH could not be asked. */
static long may_exec(long dirfd, const char *path, long flags, int *legacy)
{
	long r = sf_sys(SYS_faccessat2, dirfd, (long)path, X_OK,
			AT_EACCESS | (flags & AT_EMPTY_PATH), 0, 0);

	*legacy = r == -ENOSYS;
	if (*legacy)
		r = sf_sys(SYS_faccessat, dirfd, (long)path, X_OK, 0, 0, 0);
	return r;
}

static enum target probe(long dirfd, const char *path, long flags, int depth)
{
	int legacy, empty;
	enum target t;
	long r, fd;

	r = may_exec(dirfd, path, flags, &legacy);
	if (r == -EFAULT) /* a bad path (NULL...): the exec fails alike */
		return T_FAILS;
	empty = (flags & AT_EMPTY_PATH) && (!path || path[0] == '\0');
	if (empty) {
		if (r < 0 && !(legacy && r == -ENOENT))
			return T_FAILS;
		return probe_fd(dirfd, depth, 0);
	}
	if (r < 0)
		return T_FAILS;
	fd = sf_sys(SYS_openat, dirfd, (long)path, O_RDONLY | O_CLOEXEC |
		    ((flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0), 0, 0, 0);
	/* Errors the exec would meet as well; anything else (unreadable,
	 * out of descriptors...) means we cannot tell: fail closed. */
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
		return T_FAILS;
	if (fd < 0)
		return T_KERNEL;
	t = probe_fd(fd, depth, 0);
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return t;
}

/* Whether the new image's loader will be able to open this library: a
 * process that dropped its privileges or changed its root may no longer
 * reach it, and a path with a space or a colon is cut in pieces by the
 * loader; it then goes on without it ("cannot be preloaded: ignored"). */
static int lib_reachable(void)
{
	const char *s;
	long r;

	for (s = sf_cfg.lib_path; *s; s++)
		if (*s == ' ' || *s == ':')
			return 0;
	r = sf_sys(SYS_faccessat2, AT_FDCWD, (long)sf_cfg.lib_path, R_OK, AT_EACCESS, 0, 0);
	if (r == -ENOSYS)
		r = sf_sys(SYS_faccessat, AT_FDCWD, (long)sf_cfg.lib_path, R_OK, 0, 0, 0);
	return r == 0;
}

static int is_our_lib(const char *s, size_t n)
{
	static const char base[] = "libsecfilter.so";
	size_t bl = sizeof base - 1, i;

	if (n == sf_strlen(sf_cfg.lib_path)) {
		for (i = 0; i < n && s[i] == sf_cfg.lib_path[i]; i++)
			;
		if (i == n)
			return 1;
	}
	if (n < bl || (n > bl && s[n - bl - 1] != '/'))
		return 0;
	for (i = 0; i < bl; i++)
		if (s[n - bl + i] != base[i])
			return 0;
	return 1;
}

/* LD_PRELOAD=<us>:<the program's other preloads>; without us for a
 * kernel-filtered target.  Returns 0 when nothing is left to preload. */
static int build_preload(struct sf_buf *b, const char *prog, int with_us)
{
	const char *s = prog;

	sf_puts(b, "LD_PRELOAD=");
	if (with_us)
		sf_puts(b, sf_cfg.lib_path);
	while (s && *s) {
		size_t n = 0;
		while (s[n] && s[n] != ':' && s[n] != ' ')
			n++;
		if (n && !is_our_lib(s, n)) {
			if (b->p[b->len - 1] != '=')
				sf_putc(b, ':');
			sf_putn(b, s, n);
		}
		s += n + (s[n] != '\0');
	}
	return b->p[b->len - 1] != '=';
}

static int dropped(const char *e)
{
	return sf_startswith(e, "LD_PRELOAD=") || sf_startswith(e, "SECFILTER_");
}

static const char *find_preload(char *const *envp)
{
	const char *v = NULL;

	for (; envp && *envp; envp++)
		if (sf_startswith(*envp, "LD_PRELOAD="))
			v = *envp + 11;
	return v;
}

static size_t count_env(char *const *envp)
{
	size_t n = 0;

	while (envp && envp[n])
		n++;
	return n;
}

struct env_out {
	char **v;
	size_t vcap;
};

static size_t fill_env(struct env_out *o, char *const *envp, char *preload,
		       int has_preload, int with_us)
{
	size_t k = 0;

	if (has_preload)
		o->v[k++] = preload;
	if (with_us) {
		o->v[k++] = (char *)__atomic_load_n(&sf_env_policy, __ATOMIC_ACQUIRE);
		o->v[k++] = sf_cfg.env_action;
		o->v[k++] = sf_cfg.env_log;
		o->v[k++] = sf_cfg.env_mode;
		if (sf_cfg.supervisor)
			o->v[k++] = sf_cfg.env_supervisor;
	}
	for (; envp && *envp; envp++)
		if (!dropped(*envp))
			o->v[k++] = *envp;
	o->v[k] = NULL;
	return k;
}

static long kernel_filter_now(void)
{
	struct sf_error err;

	return sf_trusted_install(sf_cur, 0, &err);
}

static long do_exec(const struct exec_req *r, char **env)
{
	if (r->nr == SYS_execveat)
		return sf_sys(SYS_execveat, r->dirfd, (long)r->path, (long)r->argv,
			      (long)env, r->flags, 0);
	return sf_sys(SYS_execve, (long)r->path, (long)r->argv, (long)env, 0, 0, 0);
}

/* The new environment is built in one mapping rather than on the stack:
 * this runs in the SIGSYS handler, on whatever stack the program made the
 * call from (a small thread stack, a posix_spawn child's), and exec is
 * not a hot path. */
long sf_exec(struct sf_call *c)
{
	struct exec_req r;
	struct env_out o;
	const char *prog_pre;
	struct sf_buf pre;
	size_t ptrs, pre_need, size;
	enum target t;
	char *mem;
	int has_pre;
	long ret;

	read_req(c, &r);
	/* Read below: a bad envp is the kernel's EFAULT, not our SIGSEGV.
	 * (The kernel would report a missing file first; the exec fails
	 * either way.) */
	if ((ret = sf_user_vec_ok(r.envp)) < 0)
		return ret;
	t = probe(r.dirfd, r.path, r.flags, 0);
	if (t == T_PRELOAD && !lib_reachable())
		t = T_KERNEL;
	prog_pre = find_preload(r.envp);
	ptrs = (count_env(r.envp) + 7) * sizeof(char *);
	pre_need = sf_strlen(sf_cfg.lib_path) + (prog_pre ? sf_strlen(prog_pre) : 0) + 16;
	size = ptrs + pre_need;
	mem = sf_pages(size);
	if (!mem)
		return -ENOMEM;
	o.v = (char **)mem;
	o.vcap = ptrs / sizeof(char *);
	pre.p = mem + ptrs;
	pre.len = 0;
	pre.cap = pre_need;
	has_pre = build_preload(&pre, prog_pre, t != T_KERNEL);
	fill_env(&o, r.envp, pre.p, has_pre, t != T_KERNEL);
	if (t == T_KERNEL && (ret = kernel_filter_now()) < 0)
		goto out; /* fail closed: no exec without its filter */
	ret = do_exec(&r, o.v);
out:
	sf_unpages(mem, size);
	return ret;
}
