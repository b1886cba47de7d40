/* execve/execveat: the new image must get the library and the current
 * policy even when the program cleared or edited its environment.
 *
 * The new environment is the program's minus LD_PRELOAD and SECFILTER_*,
 * plus LD_PRELOAD=<this library>[:the program's other preloads],
 * SECFILTER_POLICY=<canonical text of the current policy> and the current
 * action, log and mode.  It is built on this stack (or in raw-mapped
 * memory when large), never with malloc: this also runs in vfork and
 * posix_spawn children, which share the parent's heap.
 *
 * LD_PRELOAD cannot reach a static binary, nor a set-user-ID one (the
 * loader ignores it in secure mode), nor one we cannot read to tell: those
 * get the policy as a kernel filter, installed right before the execve. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "sf.h"

enum target { T_PRELOAD, T_KERNEL, T_FAILS };

#define STACK_PTRS 256
#define STACK_PRELOAD 4608

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

/* An ELF image is dynamic when it names an interpreter. */
static enum target elf_kind(long fd, const unsigned char *head, long n)
{
	const Elf64_Ehdr *eh = (const void *)head;
	Elf64_Phdr ph;
	unsigned i;

	if (n < (long)sizeof *eh || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return T_PRELOAD; /* not ours to judge: the kernel decides */
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
	if (k == 0 || depth >= 4)
		return T_FAILS;
	return probe(AT_FDCWD, interp, 0, depth + 1);
}

static enum target probe_fd(long fd, int depth)
{
	unsigned char head[256];
	struct stat st;
	long n;

	if (sf_sys(SYS_fstat, fd, (long)&st, 0, 0, 0, 0) < 0 || !S_ISREG(st.st_mode))
		return T_FAILS;
	if (st.st_mode & (S_ISUID | S_ISGID))
		return T_KERNEL;
	n = sf_sys(SYS_pread64, fd, (long)head, sizeof head, 0, 0, 0);
	if (n >= 2 && head[0] == '#' && head[1] == '!')
		return script_kind(head, n, depth);
	if (n >= 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F')
		return elf_kind(fd, head, n);
	return T_PRELOAD;
}

static enum target probe(long dirfd, const char *path, long flags, int depth)
{
	long fd, okflags = flags & AT_EMPTY_PATH;
	enum target t;

	if (sf_sys(SYS_faccessat, dirfd, (long)path, X_OK, 0, 0, 0) < 0 &&
	    !(okflags && path[0] == '\0'))
		return T_FAILS;
	if (okflags && path[0] == '\0')
		return probe_fd(dirfd, depth);
	fd = sf_sys(SYS_openat, dirfd, (long)path, O_RDONLY | O_CLOEXEC |
		    ((flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0), 0, 0, 0);
	if (fd < 0) /* executable but unreadable: cannot tell, fail closed */
		return fd == -EACCES ? T_KERNEL : T_FAILS;
	t = probe_fd(fd, depth);
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return t;
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
	char setting[3][300];
};

static void put_setting(char *dst, const char *name, const char *value)
{
	struct sf_buf b = { dst, 0, 300 };

	sf_puts(&b, name);
	sf_puts(&b, value);
}

static size_t fill_env(struct env_out *o, char *const *envp, char *preload,
		       int has_preload, int with_us)
{
	size_t k = 0;

	if (has_preload)
		o->v[k++] = preload;
	if (with_us) {
		put_setting(o->setting[0], "SECFILTER_ACTION=", sf_cfg.action_text);
		put_setting(o->setting[1], "SECFILTER_LOG=", sf_cfg.log_text);
		put_setting(o->setting[2], "SECFILTER_MODE=", sf_cfg.mode_text);
		o->v[k++] = (char *)__atomic_load_n(&sf_env_policy, __ATOMIC_ACQUIRE);
		o->v[k++] = o->setting[0];
		o->v[k++] = o->setting[1];
		o->v[k++] = o->setting[2];
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

	return sf_trusted_install(sf_cur, SECCOMP_RET_KILL_PROCESS, &err);
}

static long do_exec(const struct exec_req *r, char **env)
{
	if (r->nr == SYS_execveat)
		return sf_sys(SYS_execveat, r->dirfd, (long)r->path, (long)r->argv,
			      (long)env, r->flags, 0);
	return sf_sys(SYS_execve, (long)r->path, (long)r->argv, (long)env, 0, 0, 0);
}

long sf_exec(struct sf_call *c)
{
	struct exec_req r;
	char *stack_ptrs[STACK_PTRS], stack_pre[STACK_PRELOAD];
	struct env_out o;
	const char *prog_pre;
	struct sf_buf pre;
	size_t need, pre_need;
	enum target t;
	int has_pre;
	long ret;

	read_req(c, &r);
	t = probe(r.dirfd, r.path, r.flags, 0);
	prog_pre = find_preload(r.envp);
	need = count_env(r.envp) + 6;
	pre_need = sf_strlen(sf_cfg.lib_path) + (prog_pre ? sf_strlen(prog_pre) : 0) + 16;
	o.vcap = need;
	o.v = need <= STACK_PTRS ? stack_ptrs : sf_pages(need * sizeof(char *));
	pre.p = pre_need <= STACK_PRELOAD ? stack_pre : sf_pages(pre_need);
	pre.len = 0;
	pre.cap = pre_need <= STACK_PRELOAD ? STACK_PRELOAD : pre_need;
	if (!o.v || !pre.p) {
		ret = -ENOMEM;
		goto out;
	}
	has_pre = build_preload(&pre, prog_pre, t != T_KERNEL);
	fill_env(&o, r.envp, pre.p, has_pre, t != T_KERNEL);
	if (t == T_KERNEL && (ret = kernel_filter_now()) < 0)
		goto out; /* fail closed: no exec without its filter */
	ret = do_exec(&r, o.v);
out:
	if (o.v && o.v != stack_ptrs)
		sf_unpages(o.v, need * sizeof(char *));
	if (pre.p && pre.p != stack_pre)
		sf_unpages(pre.p, pre_need);
	return ret;
}
