/* execve/execveat: the new image must get the library and the current
 * policy even when the program cleared or edited its environment, and
 * must run no code of the program's choosing before the library's
 * constructor.
 *
 * What runs is decided on an open descriptor, and that descriptor is what
 * is executed (execveat(fd, "", AT_EMPTY_PATH)): a path looked up twice,
 * once to probe and once to exec, lets the program swap a dynamic file
 * for a static one in between.  A script (#!) is run the way the kernel
 * would run it, its interpreter executed by descriptor with the argument
 * vector the kernel would build; the interpreter then opens the script
 * itself, as it always does.
 *
 * A dynamic image gets LD_PRELOAD=<this library> and nothing else
 * preloaded, SECFILTER_POLICY=<canonical text of the current policy>,
 * SECFILTER_ORIGINS=<where its filters were written>, and
 * the current action, log and mode (and run's SECFILTER_SUPERVISOR, if it
 * was given, and SECFILTER_REWRITE=0 when rewriting is off); the loader's
 * variables that run code
 * or make calls before our constructor (LD_AUDIT, other preloads, which
 * the loader relocates and initializes before this library whatever
 * their order, LD_DEBUG_OUTPUT...) are dropped.  The environment is built
 * in raw-mapped memory, never with malloc: this also runs in vfork and
 * posix_spawn children, which share the parent's heap.
 *
 * LD_PRELOAD cannot reach a static binary, nor a set-ID one or one with
 * file capabilities (the loader ignores it in secure mode), nor one that
 * is not x86-64, nor one whose PT_INTERP is not the loader that loaded
 * us, nor one we cannot read to tell: those get the policy as a kernel
 * filter, installed right before the execve, which then may go by path. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "trap.h"

enum target { T_PRELOAD, T_KERNEL, T_FAILS };

#ifndef AT_EXECVE_CHECK
#define AT_EXECVE_CHECK 0x10000 /* Linux 6.14's uapi; glibc 2.36 predates it */
#endif

/* The kernel runs at most this many nested interpreters (scripts whose
 * interpreter is a script...): ELOOP past it. */
#define MAX_INTERP 5
#define HEAD SF_SCRIPT_HEAD

/* How much of an environment string this file reads when it is not
 * LD_PRELOAD's: the longest name it compares (loader_var), and more. */
#define NAME_HEAD 32

struct exec_req {
	long nr, dirfd, flags;
	const char *path;
	char *const *argv, *const *envp;
	uintptr_t sp; /* the program's stack pointer at the call */
};

/* The decision, and for T_PRELOAD what to execute. */
struct plan {
	enum target t;
	long err;          /* T_FAILS: what the exec would return */
	long fd;           /* T_PRELOAD: the file to execute */
	int fd_ours;       /* opened here: closed after a failed exec */
	int named;         /* the kernel names the image as execve would (open_target) */
	long lease_fd;     /* holds the file's content still (see hold); -1 */
	/* Scripts: the words the kernel puts before the script's argv[1]
	 * (interpreter, its argument, the script's name, innermost last),
	 * in lines[] and filename[]. */
	int nscripts;
	const char *words[2 * MAX_INTERP + 1];
	int nwords;
	char *filename;    /* the name the kernel gives the first file */
	uint32_t ids[4];   /* exec_ids, asked once for every level of scripts */
	int ids_known;
	char lines[MAX_INTERP][HEAD]; /* last: not cleared (plan_init) */
};

/* Everything but the script lines, written before they are read: 1.3
 * KiB less to clear for each exec. */
static void plan_init(struct plan *pl)
{
	sf_memset(pl, 0, __builtin_offsetof(struct plan, lines));
}

static void read_req(const struct sf_call *c, struct exec_req *r)
{
	int at = c->nr == SYS_execveat;

	r->nr = c->nr;
	r->dirfd = at ? (long)c->a[0] : AT_FDCWD;
	r->path = (const char *)c->a[at ? 1 : 0];
	r->argv = (char *const *)c->a[at ? 2 : 1];
	r->envp = (char *const *)c->a[at ? 3 : 2];
	r->flags = at ? (long)c->a[4] : 0;
	/* a wrapper runs on the program's stack, the trap's handler not */
	r->sp = c->uc ? (uintptr_t)c->uc->uc_mcontext.gregs[REG_RSP]
		      : (uintptr_t)__builtin_frame_address(0);
}

static int empty_path(const struct exec_req *r)
{
	return (r->flags & AT_EMPTY_PATH) && r->path && r->path[0] == '\0';
}

static long fails(struct plan *pl, long err)
{
	pl->t = T_FAILS;
	pl->err = err;
	return 0;
}

/* Whether the loader named by PT_INTERP is the one that loaded this
 * process, which will load this library the same way: one of the names
 * the x86-64 loader is installed under (directories only root can
 * change: a name the program could swap after this check would be looked
 * up again by the kernel) and the same file as ours. */
static int known_loader(const char *interp)
{
	static const char *const std[] = {
		"/lib64/ld-linux-x86-64.so.2",
		"/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
		"/usr/lib64/ld-linux-x86-64.so.2",
		"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
	};
	const char *ours = sf_loader_path();
	struct stat a, b;
	unsigned i;
	int listed = 0;

	if (!ours || ours[0] != '/')
		return 0;
	for (i = 0; i < sizeof std / sizeof std[0]; i++)
		listed |= sf_streq(interp, std[i]);
	if (sf_streq(interp, ours))
		return 1; /* the name the kernel loaded ours by: two stats of every exec */
	if (!listed)
		return 0;
	if (sf_sys(SYS_newfstatat, AT_FDCWD, (long)interp, (long)&a, 0, 0, 0) < 0 ||
	    sf_sys(SYS_newfstatat, AT_FDCWD, (long)ours, (long)&b, 0, 0, 0) < 0)
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* An ELF image loads this library when it is x86-64 and names our loader
 * as its interpreter.  One that is not x86-64 (i386, x32, another machine
 * through binfmt_misc) cannot load it, and the policy does not speak its
 * syscalls: the kernel filter's architecture check kills it.  No
 * interpreter (static, static-pie, the loader itself run as a program)
 * or another one (a static "interpreter", another libc's loader): the
 * kernel filter. */
static enum target elf_kind(long fd, const unsigned char *head, long n)
{
	const Elf64_Ehdr *eh = (const void *)head;
	char interp[HEAD];

	if (n < (long)sizeof *eh)
		return T_PRELOAD; /* not an image the kernel runs: it says ENOEXEC */
	if (eh->e_machine != EM_X86_64 || sf_elf_interp(fd, head, n, interp, sizeof interp) <= 0)
		return T_KERNEL;
	return known_loader(interp) ? T_PRELOAD : T_KERNEL;
}

/* Whether the new image's loader will have room to map this library.
 * It maps LD_PRELOAD's library before anything else of the image's and
 * goes on without it when the mapping fails ("failed to map segment:
 * ignored"): an address-space or data limit that leaves room for a
 * program needing no library and none for ours would run it unfiltered
 * (a_exec_rlimit).  Both limits must cover the program's own mapping and
 * ours with LIMIT_SLACK to spare (the loader, the initial stack with its
 * strings, the vDSO); an unlimited one always does.  Program headers
 * beyond what was read: only unlimited limits are trusted. */
#define LIMIT_SLACK (32ull << 20)
static int loader_room(const unsigned char *head, long n)
{
	const Elf64_Ehdr *eh = (const void *)head;
	uint64_t pspan = 1ull << 48, pw = 1ull << 48, lspan, lw; /* more than any limit */
	struct rlimit as, data;

	if (sf_sys(SYS_prlimit64, 0, RLIMIT_AS, 0, (long)&as, 0, 0) < 0 ||
	    sf_sys(SYS_prlimit64, 0, RLIMIT_DATA, 0, (long)&data, 0, 0) < 0)
		return 0;
	if (as.rlim_cur == RLIM_INFINITY && data.rlim_cur == RLIM_INFINITY)
		return 1;
	if (eh->e_phoff <= (uint64_t)n && (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= n - eh->e_phoff)
		sf_elf_load_size((const Elf64_Phdr *)(head + eh->e_phoff), eh->e_phnum, &pspan, &pw);
	sf_self_load_size(&lspan, &lw);
	return (as.rlim_cur == RLIM_INFINITY || as.rlim_cur >= pspan + lspan + LIMIT_SLACK) &&
	       (data.rlim_cur == RLIM_INFINITY || data.rlim_cur >= pw + lw + LIMIT_SLACK);
}

/* A descriptor we cannot read (O_PATH, as fexecve may get), reopened for
 * reading through /proc: the same file.  -errno when that fails. */
static long reopen_readable(long fd)
{
	char path[32];
	struct sf_buf b = { path, 0, sizeof path };

	sf_puts(&b, "/proc/self/fd/");
	sf_putu(&b, (uint64_t)fd);
	return sf_sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
}

/* Whether execve would find the file executable: the effective ids
 * decide (faccessat without AT_EACCESS asks about the real ones, and a
 * process whose real uid cannot execute a static binary its effective uid
 * can would run it unfiltered).  0 or -errno.  Kernels before 5.8 have no
 * faccessat2: the real ids then, and no AT_EMPTY_PATH. */
static long may_exec(long dirfd, const char *path, long flags)
{
	long r = sf_sys(SYS_faccessat2, dirfd, (long)path, X_OK,
			AT_EACCESS | (flags & AT_EMPTY_PATH), 0, 0);

	if (r == -ENOSYS) {
		if ((flags & AT_EMPTY_PATH) && path && !path[0])
			return 0;
		r = sf_sys(SYS_faccessat, dirfd, (long)path, X_OK, 0, 0, 0);
	}
	return r;
}

/* The loader ignores LD_PRELOAD in an image the kernel starts in secure
 * mode (AT_SECURE, security/commoncap.c): one whose effective uid or gid
 * will differ from the real one (a set-ID file, or a process that
 * already runs with them apart: the kernel compares the new effective
 * ids with the old real ones), or whose file capabilities raise it,
 * unless its real uid is root's.  The ids are those the image was
 * started with (sf_start_ids) until a call of the program's may have
 * changed them (sf_exec_note); from then on the calling thread's
 * are asked (credentials are per thread): two calls more in each exec of
 * a program that switched ids. */
static int ids_changed;

enum { RUID, EUID, RGID, EGID };

/* A set*id argument that leaves the id as it is: -1, or its value. */
static int keeps(uint64_t arg, uint32_t id)
{
	return (uint32_t)arg == (uint32_t)-1 || (uint32_t)arg == id;
}

/* c may change the ids: set*id, unshare, setns, or a clone into a new
 * user namespace (which changes what "root" means).  A call that sets the
 * real and effective ids to what they are changes nothing: glibc's
 * posix_spawn with POSIX_SPAWN_RESETIDS (make's) makes two in every
 * child, which shares its parent's memory. */
static void note_ids(const struct sf_call *c)
{
	uint32_t ids[4];
	int same;

	if (__atomic_load_n(&ids_changed, __ATOMIC_RELAXED) || sf_start_ids(ids) < 0)
		return;
	switch (c->nr) {
	case SYS_setresuid: case SYS_setreuid:
		same = keeps(c->a[0], ids[RUID]) && keeps(c->a[1], ids[EUID]);
		break;
	case SYS_setresgid: case SYS_setregid:
		same = keeps(c->a[0], ids[RGID]) && keeps(c->a[1], ids[EGID]);
		break;
	case SYS_setuid:
		same = (uint32_t)c->a[0] == ids[RUID] && (uint32_t)c->a[0] == ids[EUID];
		break;
	case SYS_setgid:
		same = (uint32_t)c->a[0] == ids[RGID] && (uint32_t)c->a[0] == ids[EGID];
		break;
	case SYS_unshare:
		same = !(c->a[0] & CLONE_NEWUSER);
		break;
	default: /* setns (to any namespace, a user one too), a clone */
		same = 0;
	}
	if (!same)
		__atomic_store_n(&ids_changed, 1, __ATOMIC_RELAXED);
}

static int exec_ids(uint32_t ids[4])
{
	uint32_t u[3], g[3];

	if (!__atomic_load_n(&ids_changed, __ATOMIC_RELAXED) && sf_start_ids(ids) == 0)
		return 0;
	if (sf_sys(SYS_getresuid, (long)&u[0], (long)&u[1], (long)&u[2], 0, 0, 0) < 0 ||
	    sf_sys(SYS_getresgid, (long)&g[0], (long)&g[1], (long)&g[2], 0, 0, 0) < 0)
		return -1;
	ids[RUID] = u[0];
	ids[EUID] = u[1];
	ids[RGID] = g[0];
	ids[EGID] = g[1];
	return 0;
}

/* Errors of an open that the exec would meet as well. */
static int gone(long e)
{
	return e == -ENOENT || e == -ENOTDIR || e == -ELOOP || e == -ENAMETOOLONG;
}

/* Opens what exec would open, for reading. */
static long open_exec(long dirfd, const char *path, long flags)
{
	return sf_sys(SYS_openat, dirfd, (long)path,
		      O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
			      ((flags & AT_SYMLINK_NOFOLLOW) ? O_NOFOLLOW : 0),
		      0, 0, 0);
}

static long classify(struct plan *pl, long fd, int ours, const char *filename, int inaccessible,
		     int depth);
static long script_check(const struct exec_req *r);

/* Opens what the exec names.  Executed by descriptor, the image is named
 * after the file's directory entry (since Linux 6.13 or 6.14: 6.14 is
 * taken, a kernel before it gets the name set; the descriptor's number
 * before that): the name the path ends in, which execve would give it
 * too, unless that is a symbolic link (python3 for python3.11).  So the
 * path is opened without following a last link first, and only a link,
 * an older kernel or a script (named after the script, not its
 * interpreter) needs SECFILTER_COMM and the new image's prctl. */
static long open_target(struct plan *pl, const struct exec_req *r)
{
	int by_entry = sf_kernel_version() >= SF_KERNEL(6, 14);
	long fd;

	if (by_entry && !(r->flags & AT_SYMLINK_NOFOLLOW)) {
		fd = open_exec(r->dirfd, r->path, r->flags | AT_SYMLINK_NOFOLLOW);
		if (fd != -ELOOP) {
			pl->named = fd >= 0;
			return fd;
		}
	}
	fd = open_exec(r->dirfd, r->path, r->flags);
	pl->named = by_entry && fd >= 0 && (r->flags & AT_SYMLINK_NOFOLLOW);
	return fd;
}

/* A script: the kernel would run its interpreter with [interpreter,
 * argument, filename, argv[1]...].  So do we, after probing the
 * interpreter the same way (it may be a script too). */
static long script(struct plan *pl, const unsigned char *head, long n, const char *filename,
		   int inaccessible, int depth)
{
	const char *name, *arg;
	char *line;
	long e, fd;

	if (depth >= MAX_INTERP)
		return fails(pl, -ELOOP);
	line = pl->lines[depth];
	if ((e = sf_script_line(head, n, line, &name, &arg)) < 0)
		return fails(pl, e);
	/* The interpreter would open the script by a name that dies with
	 * the exec: /dev/fd/N of a close-on-exec descriptor. */
	if (inaccessible)
		return fails(pl, -ENOENT);
	/* Words go in front of what deeper levels add. */
	pl->words[pl->nwords++] = (char *)filename;
	if (arg)
		pl->words[pl->nwords++] = (char *)arg;
	pl->nscripts++;
	if ((e = may_exec(AT_FDCWD, name, 0)) < 0)
		return fails(pl, e);
	fd = open_exec(AT_FDCWD, name, 0);
	if (fd >= 0)
		return classify(pl, fd, 1, name, 0, depth + 1);
	if (gone(fd))
		return fails(pl, fd);
	pl->t = T_KERNEL;
	return 0;
}

/* Whether what we read of the file is what the kernel will execute: the
 * descriptor pins the file, not its content, and a program that may
 * write the file could rewrite its headers between our reading and the
 * exec (a static program's in place of a dynamic one's).
 *
 * - A read lease on a read-only descriptor of our own makes any open for
 *   writing wait until the exec has closed that descriptor, by which time
 *   the kernel has read the headers and the interpreter's name and
 *   refuses writers to the image (ETXTBSY).  It cannot be taken while the
 *   file is open for writing.  Its break is signalled to us as SIGURG
 *   (ignored by default; a program's own handler -- Go's preemption --
 *   sees one spurious SIGURG when a writer opens the file in those
 *   microseconds; one still pending at the exec is discarded in the new
 *   image, or stays pending if the program blocks SIGURG), and sf_exec
 *   checks that it is still held, unbroken, right before the exec: a
 *   break in progress reads as F_UNLCK, and the kernel removes a lease
 *   whose break has waited lease-break-time.
 * - Before it, for a file without a name only (st_nlink 0: a memfd is
 *   one, and a program file on disk is not, so it pays no extra call): a
 *   memfd's writers are not counted by the kernel (exec does not make
 *   them wait, and they can write to it while it runs), so only a memfd
 *   sealed against writing holds still.
 * - Otherwise (not the file's owner, no CAP_LEASE; a filesystem without
 *   leases): holds if our effective ids cannot write the file.
 * 1 when it holds, 0 when it may change.  gfd: our own read-only
 * descriptor of the file, kept in pl->lease_fd when leased. */
static int hold(struct plan *pl, long gfd, const struct stat *st)
{
	long r;

	/* A memfd has no name (nor does any other file a lease would not
	 * hold for this reason): only those are asked about seals. */
	if (st->st_nlink == 0 && (r = sf_sys(SYS_fcntl, gfd, F_GET_SEALS, 0, 0, 0, 0)) >= 0)
		return (r & F_SEAL_WRITE) != 0;
	sf_sys(SYS_fcntl, gfd, F_SETSIG, SIGURG, 0, 0, 0);
	r = sf_sys(SYS_fcntl, gfd, F_SETLEASE, F_RDLCK, 0, 0, 0);
	if (r == 0) {
		pl->lease_fd = gfd;
		return 1;
	}
	if (r == -EAGAIN) /* open for writing */
		return 0;
	r = sf_sys(SYS_faccessat2, gfd, (long)"", W_OK, AT_EACCESS | AT_EMPTY_PATH, 0, 0);
	if (r == -ENOSYS) /* before 5.8: the owner could make it writable */
		return st->st_uid != (uid_t)sf_sys(SYS_geteuid, 0, 0, 0, 0, 0, 0) &&
		       !(st->st_mode & (S_IWGRP | S_IWOTH));
	return r != 0;
}

/* What the file at fd is.  Keeps fd open when it is what T_PRELOAD will
 * execute, closes it otherwise (if ours). */
static long classify(struct plan *pl, long fd, int ours, const char *filename, int inaccessible,
		     int depth)
{
	unsigned char head[1024]; /* the ELF header and its program headers */
	struct stat st;
	const uint32_t *ids = pl->ids;
	long n, x, rfd = fd;
	int held;

	pl->t = T_KERNEL;
	if (sf_sys(SYS_newfstatat, fd, (long)"", (long)&st, AT_EMPTY_PATH, 0, 0) < 0 ||
	    !S_ISREG(st.st_mode)) {
		fails(pl, -EACCES);
		goto done;
	}
	/* Secure mode with the ids already apart (exec_ids); set-ID bits
	 * no_new_privs takes away (no_new_privs). */
	if (!pl->ids_known && exec_ids(pl->ids) == 0)
		pl->ids_known = 1;
	if (!pl->ids_known || ids[EUID] != ids[RUID] || ids[EGID] != ids[RGID])
		goto done;
	/* Our own read-only descriptor: the program's (fexecve) may be
	 * O_PATH, or open for writing, and a lease on it would outlive us. */
	if (!ours && (rfd = reopen_readable(fd)) < 0)
		goto done;
	held = hold(pl, rfd, &st);
	n = sf_sys(SYS_pread64, rfd, (long)head, sizeof head, 0, 0, 0);
	if (n < 0)
		goto done;
	/* File capabilities (ping...), which no_new_privs does not stop from
	 * putting an unprivileged image in secure mode: present, or cannot
	 * tell; not asked for a real root, whom they never put there. */
	if (ids[RUID] != 0 &&
	    (x = sf_sys(SYS_fgetxattr, rfd, (long)"security.capability", 0, 0, 0, 0)) != -ENODATA &&
	    x != -EOPNOTSUPP)
		goto done;
	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		/* The kernel reads HEAD bytes of a script. */
		script(pl, head, n < HEAD ? n : HEAD, filename, inaccessible, depth);
		goto done;
	}
	if (n >= 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F') {
		pl->t = elf_kind(rfd, head, n);
		if (pl->t == T_PRELOAD && held && !loader_room(head, n))
			pl->t = T_KERNEL;
	}
	else
		pl->t = T_PRELOAD; /* ENOEXEC, or binfmt_misc, which cannot open it by fd */
	if (pl->t == T_PRELOAD && !held)
		pl->t = T_KERNEL;
	if (pl->t == T_PRELOAD) {
		pl->fd = fd;
		pl->fd_ours = ours;
		ours = 0; /* kept */
		if (depth > 0) /* the interpreter's argv[0]: its name as written */
			pl->words[pl->nwords++] = filename;
	}
done:
	if (pl->lease_fd >= 0 && pl->t != T_PRELOAD) {
		if (pl->lease_fd == fd)
			ours = 1; /* closed below, with its lease */
		else
			sf_sys(SYS_close, pl->lease_fd, 0, 0, 0, 0, 0);
		pl->lease_fd = -1;
	}
	if (rfd != fd && rfd != pl->lease_fd)
		sf_sys(SYS_close, rfd, 0, 0, 0, 0, 0);
	if (ours)
		sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return 0;
}

/* The name the kernel gives the file: the path, or /dev/fd/N[/path]
 * relative to a descriptor (bprm->filename). */
static void kernel_filename(const struct exec_req *r, struct sf_buf *b)
{
	if (r->dirfd == AT_FDCWD || r->path[0] == '/') {
		sf_puts(b, r->path);
		return;
	}
	sf_puts(b, "/dev/fd/");
	sf_putu(b, (uint64_t)r->dirfd);
	if (r->path[0]) {
		sf_putc(b, '/');
		sf_puts(b, r->path);
	}
}

static void probe(struct plan *pl, const struct exec_req *r, struct sf_buf *namebuf)
{
	int inaccessible = 0;
	long e, fd;

	pl->fd = -1;
	pl->lease_fd = -1;
	kernel_filename(r, namebuf);
	pl->filename = namebuf->p;
	if (r->dirfd != AT_FDCWD && r->path[0] != '/')
		inaccessible = sf_sys(SYS_fcntl, r->dirfd, F_GETFD, 0, 0, 0, 0) > 0;
	if (empty_path(r)) {
		classify(pl, r->dirfd, 0, pl->filename, inaccessible, 0);
	} else if ((fd = open_target(pl, r)) >= 0) {
		classify(pl, fd, 1, pl->filename, inaccessible, 0);
	} else if (gone(fd)) {
		fails(pl, fd);
		return;
	} else { /* execute-only, out of descriptors...: cannot tell, fail closed */
		pl->t = T_KERNEL;
	}
	/* Whether the kernel would execute the file, asked only where it
	 * will not be asked: an ELF image executed by descriptor gets the
	 * kernel's own answer (execveat checks the same permission, the
	 * mount's noexec and the effective ids), but a script's file is
	 * never exec'd, and a kernel filter must not be installed for an
	 * exec that fails.  Its error comes first, as the kernel's would. */
	if (pl->t != T_PRELOAD || pl->nscripts)
		if ((e = may_exec(r->dirfd, r->path, r->flags)) < 0 ||
		    (pl->nscripts && (e = script_check(r)) < 0))
			fails(pl, e);
}

/* Whether the program may have changed how this library looks to the
 * next image's loader in a way faccessat cannot tell.  Landlock checks
 * opens, not access(2): a domain of the program's own (a layer of ours
 * always grants the library) may hide it.  A mount may make its
 * directory noexec, where the loader's PROT_EXEC mapping fails, or put
 * another file there.  From the first such call of the program's
 * (sf_exec_note), the check is what the loader does: an open and an
 * executable mapping.  Forks inherit the flag with what it stands for;
 * an image the library was loaded in was loaded in that state. */
static int lib_view_changed;

static void note_lib_view(const struct sf_call *c)
{
	if (c->nr != SYS_unshare || (c->a[0] & CLONE_NEWNS))
		__atomic_store_n(&lib_view_changed, 1, __ATOMIC_RELAXED);
}

/* A script's file as the kernel's exec checks it, its LSMs included
 * (AT_EXECVE_CHECK, Linux 6.14): faccessat answers for the mode and the
 * mount only, and Landlock denies execute at the exec's open.  Asked
 * where a Landlock domain may deny it -- ours (sf_ll_watch), one the
 * program entered -- at the cost of an exec's setup; a domain entered
 * before the library was loaded is not known here, and a script it
 * denies then runs as its interpreter would run it (doc/security.md).
 * 0, or -errno. */
static long script_check(const struct exec_req *r)
{
	static char *const argv[] = { (char *)"", NULL }, *const envp[] = { NULL };
	const uint64_t a[6] = { (uint64_t)r->dirfd, (uint64_t)r->path, (uint64_t)argv,
				(uint64_t)envp,
				(uint64_t)((r->flags & (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) |
					   AT_EXECVE_CHECK),
				0 };
	long e;

	if ((!__atomic_load_n(&sf_ll_watch, __ATOMIC_RELAXED) &&
	     !__atomic_load_n(&lib_view_changed, __ATOMIC_RELAXED)) ||
	    !sf_may_call(SYS_execveat, a))
		return 0;
	e = sf_sys(SYS_execveat, (long)a[0], (long)a[1], (long)a[2], (long)a[3], (long)a[4], 0);
	return e == -EINVAL ? 0 : e; /* before 6.14: a flag it does not know */
}

void sf_exec_note(const struct sf_call *c)
{
	switch (c->nr) {
	case SYS_landlock_restrict_self: case SYS_mount: case SYS_umount2:
	case SYS_move_mount: case SYS_mount_setattr: case SYS_pivot_root: case SYS_chroot:
		note_lib_view(c);
		return;
	case SYS_unshare: case SYS_setns:
		note_lib_view(c);
		note_ids(c);
		return;
	default: /* set*id, a clone into a new user namespace */
		note_ids(c);
	}
}

/* The loader's own way to the library: open it and map it executable. */
static int lib_maps(void)
{
	long fd = sf_sys(SYS_openat, AT_FDCWD, (long)sf_cfg.lib_path, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	long m;

	if (fd < 0)
		return 0;
	m = sf_sys(SYS_mmap, 0, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (!sf_is_err(m))
		sf_unpages((void *)m, 4096);
	sf_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	return !sf_is_err(m);
}

/* Whether the new image's loader will be able to load this library: a
 * process that dropped its privileges, changed its root or its mounts or
 * entered a Landlock domain may no longer reach it, a library removed
 * under a running tree is gone, and a path with a space or a colon is
 * cut in pieces by the loader; it then goes on without it ("cannot be
 * preloaded: ignored"). */
static int lib_reachable(void)
{
	const char *s;
	long r;

	if (!sf_cfg.lib_path)
		return 0;
	for (s = sf_cfg.lib_path; *s; s++)
		if (*s == ' ' || *s == ':')
			return 0;
	if (__atomic_load_n(&lib_view_changed, __ATOMIC_RELAXED))
		return lib_maps();
	r = sf_sys(SYS_faccessat2, AT_FDCWD, (long)sf_cfg.lib_path, R_OK, AT_EACCESS, 0, 0);
	if (r == -ENOSYS)
		r = sf_sys(SYS_faccessat, AT_FDCWD, (long)sf_cfg.lib_path, R_OK, 0, 0, 0);
	return r == 0;
}

static int is_our_lib(const char *s, size_t n)
{
	static const char base[] = "libsecfilter.so";
	size_t bl = sizeof base - 1, i;

	if (sf_cfg.lib_path && n == sf_strlen(sf_cfg.lib_path)) {
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

/* LD_PRELOAD=<us> for an image that loads us: any other preload would be
 * relocated (its IFUNC resolvers) and initialized before us, in whatever
 * order.  For a kernel-filtered image the program's preloads without us.
 * Returns 0 when nothing is left to preload. */
static int build_preload(struct sf_buf *b, const char *prog, int with_us)
{
	const char *s = prog;

	sf_puts(b, "LD_PRELOAD=");
	if (with_us) {
		sf_puts(b, sf_str(sf_cfg.lib_path));
		return 1;
	}
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

/* The loader's variables that act before our constructor, in an image
 * that loads us: code (LD_AUDIT modules run before anything else) or
 * calls (the debug and profiling output files it creates, what it
 * prints).  LD_LIBRARY_PATH stays: see the README. */
static int loader_var(const char *e)
{
	/* NAME_HEAD covers the longest */
	static const char *const vars[] = {
		"LD_AUDIT=", "LD_DEBUG=", "LD_DEBUG_OUTPUT=", "LD_PROFILE=", "LD_PROFILE_OUTPUT=",
		"LD_SHOW_AUXV=", "LD_TRACE_LOADED_OBJECTS=", "LD_TRACE_PRELINKING=",
	};
	unsigned i;

	if (e[0] != 'L' || e[1] != 'D' || e[2] != '_')
		return 0;
	for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if (sf_startswith(e, vars[i]))
			return 1;
	return 0;
}

/* Every name dropped begins with LD_ or SECFILTER_: most of an
 * environment is passed on after a byte or three looked at. */
static int dropped(const char *e, int with_us)
{
	if (e[0] == 'S')
		return sf_startswith(e, "SECFILTER_");
	if (e[0] != 'L' || e[1] != 'D' || e[2] != '_')
		return 0;
	return sf_startswith(e, "LD_PRELOAD=") || (with_us && loader_var(e));
}

static const char *find_preload(char *const *envp)
{
	const char *v = NULL;

	for (; envp && *envp; envp++)
		if (**envp == 'L' && sf_startswith(*envp, "LD_PRELOAD="))
			v = *envp + 11;
	return v;
}

static size_t count_vec(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* What fill_env puts before the program's own entries, at the most, and
 * the NULL: LD_PRELOAD, the policy, its origins, the action, the log, the
 * mode, the supervisor, the rewriter's setting, the Landlock fact, the
 * name, the signal mask and LD_AUDIT. */
#define OURS_ENV 13

static void fill_env(char **out, char *const *envp, char *preload, int has_preload,
		     char *comm, char *mask, int with_us)
{
	size_t k = 0;

	if (has_preload)
		out[k++] = preload;
	if (with_us) {
		const char *policy = __atomic_load_n(&sf_env_policy, __ATOMIC_ACQUIRE);
		out[k++] = (char *)policy;
		if (policy)
			out[k++] = (char *)sf_env_origins(policy);
		out[k++] = sf_cfg.env_action;
		if (sf_cfg.env_log)
			out[k++] = (char *)sf_cfg.env_log;
		out[k++] = sf_cfg.env_mode;
		if (sf_cfg.supervisor)
			out[k++] = (char *)sf_cfg.env_supervisor;
		if (sf_rw_env())
			out[k++] = (char *)sf_rw_env();
		if (sf_ll_env())
			out[k++] = (char *)sf_ll_env();
		if (comm)
			out[k++] = comm;
		out[k++] = mask;
		if (sf_cfg.env_audit) /* trusted mode: before the image's code */
			out[k++] = (char *)sf_cfg.env_audit;
	}
	for (; envp && *envp; envp++)
		if (!dropped(*envp, with_us))
			out[k++] = *envp;
	out[k] = NULL;
}

/* [interpreter, argument, ..., script, argv[1]...]: what the kernel would
 * hand the innermost interpreter. */
static void fill_argv(char **out, const struct plan *pl, char *const *argv)
{
	size_t k = 0;
	int i;

	for (i = pl->nwords - 1; i >= 0; i--)
		out[k++] = (char *)pl->words[i];
	if (argv && argv[0])
		for (argv++; *argv; argv++)
			out[k++] = *argv;
	out[k] = NULL;
}

/* SECFILTER_COMM=<what the kernel would name the process>: executed by
 * descriptor, the process would be named after the file's directory
 * entry (or the descriptor's number on older kernels: open_target); the
 * library's constructor in the new image puts the name back. */
static void put_comm(struct sf_buf *b, const char *filename)
{
	const char *base = filename, *s;
	int n;

	for (s = filename; *s; s++)
		if (*s == '/')
			base = s + 1;
	sf_puts(b, "SECFILTER_COMM=");
	for (n = 0; base[n] && n < 15; n++)
		sf_putc(b, base[n]);
	sf_putc(b, '\0');
}

static long kernel_filter_now(void)
{
	struct sf_error err;

	return sf_trusted_install(sf_cur, 0, &err);
}

static long exec_by_path(const struct exec_req *r, char **env)
{
	if (r->nr == SYS_execveat)
		return sf_sys(SYS_execveat, r->dirfd, (long)r->path, (long)r->argv,
			      (long)env, r->flags, 0);
	return sf_sys(SYS_execve, (long)r->path, (long)r->argv, (long)env, 0, 0, 0);
}

/* SIG_IGN survives exec, and the program may have asked for it on SIGSYS
 * (its shadow: the kernel's action is our handler, which exec resets to
 * SIG_DFL).  For the exec itself it goes to the kernel, with every signal
 * blocked meanwhile, as the whole exec path runs (sf_exec: no handler of
 * the program may trap while SIGSYS is ignored, the kernel would kill
 * the process).  The new image's library
 * then finds it as the program's disposition, a static image as its own. */
struct ignore {
	int on;
	struct sf_ksigaction saved;
};

static void pass_ignore(struct ignore *g)
{
	struct sf_ksigaction shadow, ign = { 0 };

	sf_sigsys_shadow_action(NULL, (uint64_t *)&shadow);
	g->on = shadow.handler == (void *)SIG_IGN;
	if (!g->on)
		return;
	ign.handler = (void *)SIG_IGN;
	ign.flags = SA_RESTORER;
	ign.restorer = sf_restorer_plain;
	sf_sys(SYS_rt_sigaction, SIGSYS, (long)&ign, (long)&g->saved, 8, 0, 0);
}

/* After an exec that failed. */
static void unpass_ignore(struct ignore *g)
{
	if (g->on)
		sf_sys(SYS_rt_sigaction, SIGSYS, (long)&g->saved, 0, 8, 0, 0);
}

/* Where an exec builds its plan, environment and arguments: a buffer of
 * the library's own, mapped only for an exec that finds it taken (by
 * another thread, or by an exec a signal handler interrupted) or too
 * small (thousands of variables).  A fresh mapping for each exec, its
 * first page faulted in, then unmapped, was 3-4 us of each (rdtsc,
 * 2026-12-06).  A mapping's first word is its size.  Page-aligned in
 * .lbss (SF_PAGE_BSS): aligned in .bss, it aligned all of .bss to a page
 * and moved it off the page .data ends in, a fault more in every image. */
#define BUF_HEAD 16
static char exec_buf[16384] SF_PAGE_BSS;
static int exec_buf_taken;

static char *buf_get(size_t want)
{
	size_t n = (want + BUF_HEAD + 4095) & ~(size_t)4095;
	int untaken = 0;
	char *b;

	if (want + BUF_HEAD <= sizeof exec_buf &&
	    __atomic_compare_exchange_n(&exec_buf_taken, &untaken, 1, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return exec_buf;
	b = sf_pages(n);
	if (b)
		*(size_t *)b = n;
	return b;
}

static void buf_put(char *b)
{
	if (b == exec_buf)
		__atomic_store_n(&exec_buf_taken, 0, __ATOMIC_RELEASE);
	else
		sf_unpages(b, *(size_t *)b);
}

/* The mapping of an exec in progress, until the exec returns.  A
 * successful exec does not return: in a child that shares its parent's
 * memory (vfork, posix_spawn's CLONE_VM|CLONE_VFORK), the mapping would
 * stay in the parent for good (a page a command of a shell, before
 * 2026-12-06).  The child runs on its parent's thread pointer, so this
 * slot is the parent thread's, and the parent, which the kernel holds
 * until the child has exec'd or exited, takes back what it finds here
 * (clone.c, interpose/vfork.S). */
static __thread char *pending;

void sf_exec_reap(void)
{
	if (pending) {
		buf_put(pending);
		pending = NULL;
	}
}

/* The kernel starts an image in secure mode, whose loader ignores
 * LD_PRELOAD, when its file is set-ID or has capabilities (unless the
 * real uid is root's).  What the file is, classify reads: its content a
 * lease holds still until the exec, its mode and capabilities nothing
 * does, and a program that may change them (its owner, root) could make
 * the file set-group-ID between the look and the exec (a_exec_chmod).
 * Under no_new_privs the kernel ignores set-ID bits (bprm_fill_uid), and
 * no image exec'd by the library gains privileges anyway: the kernel
 * filter the other images get needs no_new_privs too.  So it is set
 * before every exec by descriptor, and a set-ID file loads the library
 * like any other.  Already set under a layer of ours or a kernel filter,
 * which need it, and which nothing unsets.  It does not stop file
 * capabilities from making an unprivileged image secure (classify asks
 * for them; changing them needs CAP_SETFCAP), nor ids already apart
 * (exec_ids). */
static long no_new_privs(void)
{
	if (__atomic_load_n(&sf_ll_watch, __ATOMIC_RELAXED) || sf_kernel_filtered())
		return 0;
	return sf_sys(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0);
}

/* The exec path runs with every signal blocked.  What it reads of the
 * calling thread -- above all its ids, which decide secure mode
 * (exec_ids) -- a handler of the program run in between could change
 * (a_exec_sigids: setresgid from a signal handler; glibc's setresgid
 * changes every thread's ids through a signal), and a check made just
 * before the exec would leave the instructions up to it.  The mask is
 * the calling thread's, and survives the exec: an image that loads the
 * library gets the program's back from SECFILTER_SIGMASK in its
 * constructor (one call, which unblocked SIGSYS before), any other
 * image before its exec (a kernel filter does not care about secure
 * mode).  A signal that comes meanwhile waits, as one that comes during
 * the execve itself does: if the exec succeeds, the new image takes it
 * with the dispositions exec leaves.
 *
 * Everything is built in one mapping (buf_get) rather than on the stack:
 * this runs in the SIGSYS handler, on whatever stack the program made the
 * call from (a small thread stack, a posix_spawn child's). */
long sf_exec(struct sf_call *c)
{
	struct exec_req r;
	struct plan *pl;
	const char *prog_pre;
	struct sf_buf pre, name, comm, mask;
	struct ignore ign;
	size_t nenv, nargv, size, off;
	char *buf, *outer, *mem, **env, **argv;
	int has_pre, with_us;
	long ret, plen;
	uint64_t old;

	/* log mode's summary of this image, which the exec ends */
	if (__atomic_load_n(&sf_logsum_active, __ATOMIC_RELAXED) && !sf_in_vfork)
		sf_logsum_flush();

	read_req(c, &r);
	/* Read below: a bad path, argv or envp is the kernel's EFAULT, not
	 * our SIGSEGV.  (The kernel would report a missing file first; the
	 * exec fails either way.)  Of the strings, only what is read here:
	 * the kernel reads the rest, and fails the exec with EFAULT itself. */
	if ((plen = sf_user_exec_args(r.path, r.argv, r.envp, NAME_HEAD, r.sp)) < 0)
		return -EFAULT;
	prog_pre = find_preload(r.envp);
	if (prog_pre && sf_user_str_rest(prog_pre - (sizeof "LD_PRELOAD=" - 1)) < 0)
		return -EFAULT; /* read whole, below */
	nenv = count_vec(r.envp);
	nargv = count_vec(r.argv);
	/* environment (ours: up to OURS_ENV entries with its NULL) and
	 * arguments; the plan; LD_PRELOAD; SECFILTER_COMM; the kernel's name */
	off = (nenv + OURS_ENV + nargv + 2 * MAX_INTERP + 2) * sizeof(char *);
	size = off + sizeof *pl + sf_strlen(sf_str(sf_cfg.lib_path)) +
	       (prog_pre ? sf_strlen(prog_pre) : 0) + 16 + 32 + 40 + (size_t)plen + 32;
	buf = buf_get(size);
	if (!buf)
		return -ENOMEM;
	mem = buf + BUF_HEAD;
	env = (char **)mem;
	argv = env + nenv + OURS_ENV;
	pl = (struct plan *)(mem + off);
	off += sizeof *pl;
	plan_init(pl);
	pre = (struct sf_buf){ mem + off, 0, sf_strlen(sf_str(sf_cfg.lib_path)) +
					 (prog_pre ? sf_strlen(prog_pre) : 0) + 16 };
	off += pre.cap;
	comm = (struct sf_buf){ mem + off, 0, 32 };
	off += comm.cap;
	mask = (struct sf_buf){ mem + off, 0, 40 };
	off += mask.cap;
	name = (struct sf_buf){ mem + off, 0, size - off };

	old = sf_block_all();
	probe(pl, &r, &name);
	if (pl->t == T_FAILS) {
		ret = pl->err;
		goto out;
	}
	if (pl->t == T_PRELOAD && !lib_reachable())
		pl->t = T_KERNEL;
	with_us = pl->t == T_PRELOAD;
	has_pre = build_preload(&pre, prog_pre, with_us);
	if (with_us && !empty_path(&r) && (!pl->named || pl->nscripts))
		put_comm(&comm, pl->filename);
	sf_puts(&mask, SF_SIGMASK_VAR "=");
	sf_putx(&mask, old);
	sf_putc(&mask, '\0');
	fill_env(env, r.envp, pre.p, has_pre, comm.len ? comm.p : NULL, mask.p, with_us);
	if (with_us && pl->nscripts)
		fill_argv(argv, pl, r.argv);
	else
		argv = (char **)r.argv;
	outer = pending; /* an exec this one's signal handler interrupted */
	pending = buf;
	if (!with_us) {
		/* fail closed: no exec without its filter, and no filter for an
		 * exec the kernel would refuse for a bad string */
		if (sf_user_exec_args(r.path, r.argv, r.envp, 0, r.sp) < 0)
			ret = -EFAULT;
		else if ((ret = kernel_filter_now()) == 0) {
			pass_ignore(&ign);
			if (!ign.on) /* the image's own mask; under SIG_IGN all stay blocked */
				sf_restore_mask(old);
			ret = exec_by_path(&r, env);
			unpass_ignore(&ign);
		}
	} else if ((ret = no_new_privs()) < 0) {
		/* fail closed: the image could start in secure mode */
	} else if (pl->lease_fd >= 0 &&
		   sf_sys(SYS_fcntl, pl->lease_fd, F_GETLEASE, 0, 0, 0, 0) != F_RDLCK) {
		/* A writer's open broke the lease: it waits on it, or waited
		 * out lease-break-time and may have changed the content. */
		ret = -EAGAIN;
	} else {
		pass_ignore(&ign);
		ret = sf_sys(SYS_execveat, pl->fd, (long)"", (long)argv, (long)env,
			     AT_EMPTY_PATH, 0);
		unpass_ignore(&ign);
	}
	pending = outer;
out:
	sf_restore_mask(old);
	if (pl->lease_fd >= 0 && pl->lease_fd != pl->fd)
		sf_sys(SYS_close, pl->lease_fd, 0, 0, 0, 0, 0);
	if (pl->fd_ours)
		sf_sys(SYS_close, pl->fd, 0, 0, 0, 0, 0);
	buf_put(buf);
	return ret;
}
