/* Reports of what Landlock denied (filter/landlock.h): Landlock itself
 * says nothing, the call just fails (EACCES, EXDEV).  Where the library
 * sees the result of a call named by a path or a port -- its wrappers and
 * the trap path, in interposition mode -- a failure of that kind on a
 * path the policy's fs. rules do not grant the call's right beneath (or a
 * port its net. rules do not list) is reported, with the rule set that
 * denied it and the line that would allow it.  The program gets the
 * error; nothing is killed.
 *
 * Only on an error return, and only once the process has entered layers
 * of its own (sf_ll_watch): the hot path pays one predictable branch. */
#include <errno.h>
#include <fcntl.h>
#include <linux/prctl.h>
#include <netinet/in.h>

#include "fnv.h"
#include "landlock.h"
#include "report.h"
#include "internal.h"

/* Read by every trap (report.h): SF_HOT, where a .bss page of its own
 * was a fault in an image's first trap. */
int sf_ll_watch SF_HOT;

#define PATH_CAP 4096

/* How a call names what it touches: the directory fd and path arguments
 * (dfd -1: relative to the cwd), and the right it needs there. */
struct named {
	long nr;
	signed char dfd, path;
	uint64_t need;
};

static const struct named calls[] = {
	{ SYS_creat, -1, 0, 0 },
	{ SYS_mkdir, -1, 0, SF_FS_MAKE_DIR },
	{ SYS_mkdirat, 0, 1, SF_FS_MAKE_DIR },
	{ SYS_unlink, -1, 0, SF_FS_REMOVE_FILE },
	{ SYS_rmdir, -1, 0, SF_FS_REMOVE_DIR },
	{ SYS_rename, -1, 1, SF_FS_MAKE_REG },
	{ SYS_renameat, 2, 3, SF_FS_MAKE_REG },
	{ SYS_renameat2, 2, 3, SF_FS_MAKE_REG },
	{ SYS_link, -1, 1, SF_FS_MAKE_REG },
	{ SYS_linkat, 2, 3, SF_FS_MAKE_REG },
	{ SYS_symlink, -1, 1, SF_FS_MAKE_SYM },
	{ SYS_symlinkat, 1, 2, SF_FS_MAKE_SYM },
	{ SYS_truncate, -1, 0, SF_FS_TRUNCATE },
	{ SYS_execve, -1, 0, SF_FS_EXEC_NEED },
	{ SYS_execveat, 0, 1, SF_FS_EXEC_NEED },
	{ SYS_open, -1, 0, 0 },
	{ SYS_openat, 0, 1, 0 },
	{ SYS_unlinkat, 0, 1, 0 },
};

/* The rights that make things, checked on the directory they are made in. */
#define IN_DIR (SF_FS_MAKE_REG | SF_FS_MAKE_DIR | SF_FS_MAKE_SYM | SF_FS_REMOVE_FILE | \
		SF_FS_REMOVE_DIR)

static int exists(int dfd, const char *path)
{
	char st[256];

	return sf_may_sys(SYS_newfstatat, dfd, (long)path, (long)st, 0) == 0;
}

static uint64_t open_need(int dfd, const char *path, long flags)
{
	uint64_t need = 0;

	if ((flags & O_ACCMODE) != O_WRONLY)
		need |= (flags & O_DIRECTORY) ? SF_FS_READ_DIR : SF_FS_READ_FILE;
	if ((flags & O_ACCMODE) != O_RDONLY)
		need |= SF_FS_WRITE_FILE;
	if (flags & O_TRUNC)
		need |= SF_FS_TRUNCATE;
	/* a new file: what its directory must grant (the rest follows) */
	if ((flags & O_CREAT) && !exists(dfd, path))
		need = SF_FS_MAKE_REG;
	return need;
}

/* "/a/b/../c" + "." -> "/a/c", in place; path is absolute. */
static void normalize(char *path)
{
	char *in = path, *out = path;

	while (*in) {
		while (*in == '/')
			in++;
		if (in[0] == '.' && (in[1] == '/' || !in[1])) {
			in++;
		} else if (in[0] == '.' && in[1] == '.' && (in[2] == '/' || !in[2])) {
			in += 2;
			while (out > path && *--out != '/')
				;
		} else if (*in) {
			*out++ = '/';
			while (*in && *in != '/')
				*out++ = *in++;
		}
	}
	if (out == path)
		*out++ = '/';
	*out = '\0';
}

/* The absolute form of path, relative to dfd (AT_FDCWD: the cwd). */
static int absolute(int dfd, const char *path, char *out)
{
	struct sf_buf b = { out, 0, PATH_CAP };
	long n;

	if (path[0] != '/') {
		if (dfd == AT_FDCWD) {
			if (sf_may_sys(SYS_getcwd, (long)out, PATH_CAP, 0, 0) < 0)
				return -1;
		} else {
			char link[32];
			struct sf_buf lb = { link, 0, sizeof link };

			sf_puts(&lb, "/proc/self/fd/");
			sf_putu(&lb, (uint64_t)dfd);
			sf_putc(&lb, '\0');
			if ((n = sf_may_sys(SYS_readlink, (long)link, (long)out, PATH_CAP - 1, 0)) < 0)
				return -1;
			out[n] = '\0';
		}
		b.len = sf_strlen(out);
		sf_putc(&b, '/');
	}
	sf_puts(&b, path);
	if (b.len >= PATH_CAP)
		return -1;
	out[b.len] = '\0';
	normalize(out);
	return 0;
}


/* The report's absolute path and text: one area for the process, taken
 * with a try-lock rather than on the stack, where the trap handler runs
 * (the program's stack or its sigaltstack: Go's are small).  A report
 * that finds it taken -- by a second thread at the same moment, or by a
 * signal handler's call denied while this thread reports -- maps pages
 * of its own, or, where the policy denies that, is not made. */
struct area {
	char abs[PATH_CAP];
	char text[2 * PATH_CAP + 512];
	unsigned char head[1024];      /* an exec's file: ELF headers, #! line */
	char interp[SF_SCRIPT_HEAD];   /* the interpreter the kernel opens next */
	char given[PATH_CAP];          /* an exec's first denied file, as named */
	char other[PATH_CAP];          /* a later file of the exec, resolved */
	char more[PATH_CAP];           /* " path" for each later one denied the same */
};
static struct area shared;
static int shared_busy;

static struct area *take(void)
{
	if (sf_trylock(&shared_busy))
		return &shared;
	return sf_may(SYS_mmap, 0) && sf_may(SYS_munmap, 0) ? sf_pages(sizeof(struct area)) : NULL;
}

static void give(struct area *a)
{
	if (a == &shared)
		sf_unlock(&shared_busy);
	else
		sf_unpages(a, sizeof *a);
}

/* The add: lines this image has reported (and the image it was forked
 * from, whose memory it copied): a program that retries what Landlock
 * denies -- a log file opened for every request, a shell trying each
 * directory of PATH that holds the same file -- is told once, as log
 * mode and trusted mode's listener tell it.  A full set reports on. */
#define SAID_MAX 64
static uint64_t said[SAID_MAX];

int sf_ll_said(uint64_t *set, unsigned n, const char *fix, size_t len)
{
	uint64_t h = sf_fnv1a(SF_FNV1A_BASIS, fix, len) | 1; /* never a free slot */

	return sf_seen(set, n, h, (unsigned)(h % n));
}

/* Reported, the first of its kind only: in log mode the rest counted for
 * the summary (logsum.c). */
static void emit(struct area *a, const struct sf_ll_denial *d, const struct sf_landlock *ll)
{
	struct sf_out o = { a->text, sizeof a->text, 0 };
	struct sf_out f;

	if (!sf_ll_report(&o, ll, d) || o.len >= o.cap)
		return;
	f = (struct sf_out){ a->text + o.len, o.cap - o.len, 0 };
	sf_ll_fix(&f, ll, d);
	if (f.len < f.cap) {
		if (sf_cfg.action == SF_ACT_LOG) {
			if (!sf_logsum_landlock(d->nr, f.buf, f.len))
				return;
		} else if (sf_ll_said(said, SAID_MAX, f.buf, f.len)) {
			return;
		}
	}
	sf_log_emit(a->text, o.len);
}

static void who(struct sf_ll_denial *d, char comm[17])
{
	comm[0] = '?';
	comm[1] = '\0';
	sf_may_sys(SYS_prctl, PR_GET_NAME, (long)comm, 0, 0);
	comm[16] = '\0';
	d->comm = comm;
	d->pid = sf_may_sys(SYS_getpid, 0, 0, 0, 0);
}

/* abs, lexically absolute, made the path Landlock checks: symbolic links
 * resolved (/bin/echo is /usr/bin/echo where /bin is a link), all of it,
 * or, when the right is checked on the directory (dir), all but the last
 * name, which a call that makes or removes it does not follow.  Left as
 * it is where that cannot be known (no /proc, a directory gone).  tmp:
 * PATH_CAP bytes. */
static void resolve(char *abs, int dir, char *tmp)
{
	size_t n = sf_strlen(abs), cut = n;
	char link[32];
	struct sf_buf lb = { link, 0, sizeof link };
	long fd, k;

	if (dir) {
		while (cut > 0 && abs[cut - 1] != '/')
			cut--;
		if (cut <= 1)
			return; /* in "/" */
		abs[cut - 1] = '\0';
	}
	fd = sf_may_sys(SYS_openat, AT_FDCWD, (long)abs, O_PATH | O_CLOEXEC, 0);
	if (dir)
		abs[cut - 1] = '/';
	if (fd < 0)
		return;
	sf_puts(&lb, "/proc/self/fd/");
	sf_putu(&lb, (uint64_t)fd);
	sf_putc(&lb, '\0');
	k = sf_may_sys(SYS_readlink, (long)link, (long)tmp, PATH_CAP - 1, 0);
	sf_may_sys(SYS_close, fd, 0, 0, 0);
	if (k <= 0 || tmp[0] != '/' || (size_t)k + (dir ? n - cut + 1 : 0) >= PATH_CAP)
		return;
	if (dir) { /* the directory's real path, then the name */
		if (k > 1)
			tmp[k++] = '/';
		sf_memcpy(tmp + k, abs + cut, n - cut);
		k += (long)(n - cut);
	}
	tmp[k] = '\0';
	sf_memcpy(abs, tmp, (size_t)k + 1);
}

/* The first right of need that a layer denies on path: the right, with
 * the path Landlock checks in out (PATH_CAP bytes) and how much of it the
 * right is checked on in *at; 0 when every right is granted or the path
 * cannot be made absolute. */
static uint64_t denied(struct area *a, const struct sf_landlock *ll, int dfd, const char *path,
		       uint64_t need, char *out, size_t *at)
{
	const struct sf_ll_rule *rule;
	uint64_t right;

	if (absolute(dfd, path, out) < 0)
		return 0;
	resolve(out, (need & IN_DIR) != 0, a->text);
	for (right = 1; right <= need; right <<= 1) {
		size_t n = sf_strlen(out);

		if (!(need & right))
			continue;
		if (right & IN_DIR) { /* made or removed in its directory */
			while (n > 1 && out[n - 1] != '/')
				n--;
			n = n > 1 ? n - 1 : 1;
		}
		if (sf_ll_denier(ll, right, out, n, 0, &rule) >= 0) {
			*at = n;
			return right;
		}
	}
	return 0;
}

static void report(struct area *a, const struct sf_landlock *ll, struct sf_ll_denial *d)
{
	char comm[17];

	who(d, comm);
	emit(a, d, ll);
}

/* An exec: the file, and when the rules grant it, the interpreters the
 * kernel opens after it (a script's, its own if a script, an ELF image's
 * loader), each of which needs what the file does.  The first one denied
 * is reported; the add: line names the later ones denied the same right
 * too, so that one line lets the exec through where the kernel, which
 * stops at the first, would have refused the next. */
static void report_exec(struct area *a, const struct sf_landlock *ll, long nr, int dfd,
			const char *path)
{
	struct sf_ll_denial d = { NULL, 0, nr, NULL, a->abs, 0, 0, 0, NULL, NULL };
	struct sf_buf more = { a->more, 0, sizeof a->more };
	const char *name, *arg, *exec = NULL;
	uint64_t right;
	int depth;
	size_t at;
	long fd, n;

	for (depth = 0; depth < 6; depth++) {
		right = denied(a, ll, dfd, path, SF_FS_EXEC_NEED, d.right ? a->other : a->abs, &at);
		if (right && !d.right) {
			/* the name as given, kept: a->interp is read again below */
			size_t len = sf_strlen(path);

			len = len < sizeof a->given ? len : sizeof a->given - 1;
			sf_memcpy(a->given, path, len);
			a->given[len] = '\0';
			d.given = a->given;
			d.right = right;
			d.at_len = at;
			d.exec = exec;
		} else if (right && right == d.right) {
			sf_putc(&more, ' ');
			sf_puts(&more, a->other);
		}
		/* as the exec path opens it: a FIFO must not block the report */
		fd = sf_may_sys(SYS_openat, dfd, (long)path,
			 O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0);
		if (fd < 0)
			break;
		n = sf_may_sys(SYS_pread64, fd, (long)a->head, sizeof a->head, 0);
		name = NULL;
		if (n >= 2 && a->head[0] == '#' && a->head[1] == '!') {
			if (sf_script_line(a->head, n < SF_SCRIPT_HEAD ? n : SF_SCRIPT_HEAD,
					   a->interp, &name, &arg) < 0)
				name = NULL;
		} else if (n >= 4 && a->head[0] == 0x7f && a->head[1] == 'E' && a->head[2] == 'L' &&
			   a->head[3] == 'F') {
			if (sf_elf_interp(fd, a->head, n, a->interp, sizeof a->interp) > 0)
				name = a->interp;
		}
		sf_may_sys(SYS_close, fd, 0, 0, 0);
		if (!name)
			break;
		if (!exec)
			exec = path; /* the program's: the file its exec named */
		path = name; /* in a->interp, read again only after denied() */
		dfd = AT_FDCWD;
	}
	if (!d.right)
		return;
	if (more.len && more.len < more.cap) {
		a->more[more.len] = '\0';
		d.more = a->more + 1;
	}
	report(a, ll, &d);
}

static void report_path(const struct sf_landlock *ll, long nr, int dfd, const char *path,
			uint64_t need)
{
	struct area *a = take();

	if (!a)
		return;
	if (need == SF_FS_EXEC_NEED) {
		report_exec(a, ll, nr, dfd, path);
	} else {
		struct sf_ll_denial d = { NULL, 0, nr, path, a->abs, 0, 0, 0, NULL, NULL };

		if ((d.right = denied(a, ll, dfd, path, need, a->abs, &d.at_len)))
			report(a, ll, &d);
	}
	give(a);
}

static void report_port(const struct sf_landlock *ll, long nr, const void *addr, long len)
{
	const struct sockaddr_in *sin = addr;
	struct sf_ll_denial d = { NULL, 0, nr, NULL, NULL, 0, 0, 0, NULL, NULL };
	const struct sf_ll_rule *rule;
	struct area *a;
	char comm[17];

	if (!addr || len < (long)sizeof *sin ||
	    (sin->sin_family != AF_INET && sin->sin_family != AF_INET6))
		return;
	d.right = nr == SYS_bind ? SF_NET_BIND : SF_NET_CONNECT;
	d.port = ((sin->sin_port & 0xff) << 8) | (sin->sin_port >> 8);
	if (sf_ll_denier(ll, d.right, NULL, 0, d.port, &rule) < 0 || !(a = take()))
		return;
	who(&d, comm);
	emit(a, &d, ll);
	give(a);
}

void sf_ll_result(long nr, long r, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		  uint64_t a4, uint64_t a5)
{
	const struct sf_policy *p = sf_enforcing();
	const uint64_t a[6] = { a0, a1, a2, a3, a4, a5 };
	unsigned i;

	if ((r != -EACCES && r != -EPERM && r != -EXDEV) || !p || !p->landlock)
		return;
	if (nr == SYS_connect || nr == SYS_bind) {
		report_port(p->landlock, nr, (const void *)a1, (long)a2);
		return;
	}
	for (i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		const struct named *n = &calls[i];
		int dfd = n->dfd < 0 ? AT_FDCWD : (int)a[n->dfd];
		const char *path = (const char *)a[n->path];
		uint64_t need = n->need;

		if (n->nr != nr)
			continue;
		if (!path)
			return;
		if (nr == SYS_creat)
			need = open_need(dfd, path, O_WRONLY | O_CREAT | O_TRUNC);
		else if (nr == SYS_open)
			need = open_need(dfd, path, (long)a1);
		else if (nr == SYS_openat)
			need = open_need(dfd, path, (long)a2);
		else if (nr == SYS_unlinkat)
			need = (a2 & AT_REMOVEDIR) ? SF_FS_REMOVE_DIR : SF_FS_REMOVE_FILE;
		report_path(p->landlock, nr, dfd, path, need);
		return;
	}
}
