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

#include "landlock.h"
#include "report.h"

int sf_ll_watch;

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
	{ SYS_execve, -1, 0, SF_FS_EXECUTE },
	{ SYS_execveat, 0, 1, SF_FS_EXECUTE },
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

	return sf_sys(SYS_newfstatat, dfd, (long)path, (long)st, 0, 0, 0) == 0;
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
			if (sf_sys(SYS_getcwd, (long)out, PATH_CAP, 0, 0, 0, 0) < 0)
				return -1;
		} else {
			char link[32];
			struct sf_buf lb = { link, 0, sizeof link };

			sf_puts(&lb, "/proc/self/fd/");
			sf_putu(&lb, (uint64_t)dfd);
			sf_putc(&lb, '\0');
			if ((n = sf_sys(SYS_readlink, (long)link, (long)out, PATH_CAP - 1, 0, 0, 0)) <
			    0)
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

static int beneath(const char *path, const char *rule)
{
	size_t n = sf_strlen(rule);

	if (n == 1 && rule[0] == '/')
		return 1;
	return sf_startswith(path, rule) && (path[n] == '/' || !path[n]);
}

/* The first layer that denies right on path (or on port), or -1; *rule
 * the first rule of that layer that grants the right anywhere (which
 * line to show), else its first rule. */
static int denying_layer(const struct sf_landlock *ll, uint64_t right, const char *path, int port,
			 const struct sf_ll_rule **rule)
{
	unsigned layer;
	uint32_t i;

	for (layer = 0; layer < ll->nlayers; layer++) {
		int granted = 0, net = path == NULL;

		if (!(ll->handles[layer] & (net ? SF_LL_NET : SF_LL_FS)))
			continue;
		*rule = NULL;
		for (i = 0; i < ll->nrules; i++) {
			const struct sf_ll_rule *r = &ll->rules[i];

			if (r->layer != layer || r->net != net)
				continue;
			if (!*rule || (!((*rule)->access & right) && (r->access & right)))
				*rule = r;
			if ((r->access & right) &&
			    (net ? r->port == port : beneath(path, ll->strings + r->path)))
				granted = 1;
		}
		if (!granted && *rule)
			return (int)layer;
	}
	return -1;
}

/* The language's broadest right that grants this one ("fs.write"). */
static const char *right_name(uint64_t right, int net)
{
	unsigned i;

	for (i = 0; i < sf_ll_right_count; i++)
		if (sf_ll_rights[i].net == net && (sf_ll_rights[i].access & right))
			return sf_ll_rights[i].name;
	return "?";
}

static void put_head(struct sf_buf *b, long nr)
{
	char comm[17] = "?";

	sf_sys(SYS_prctl, PR_GET_NAME, (long)comm, 0, 0, 0, 0);
	sf_put_list(b, (const char *const[]){ comm, "[", NULL });
	sf_putu(b, (uint64_t)sf_sys(SYS_getpid, 0, 0, 0, 0, 0, 0));
	sf_put_list(b, (const char *const[]){ "]: ", sf_syscall_by_nr(nr)->name, " denied by Landlock: ",
					     NULL });
}

static void put_rule(struct sf_buf *b, const struct sf_landlock *ll, const struct sf_ll_rule *r,
		     const char *name)
{
	sf_put_list(b, (const char *const[]){ "\n    rule: ", name, " (", ll->strings + r->source,
					     ":", NULL });
	sf_putu(b, r->line);
	sf_puts(b, ") does not grant it here\n    add: ");
	sf_puts(b, name);
	sf_puts(b, ": ");
}

static void emit(struct sf_buf *b)
{
	sf_putc(b, '\n');
	sf_log_emit(b->p, b->len < b->cap ? b->len : b->cap);
}

static void report_path(const struct sf_landlock *ll, long nr, int dfd, const char *path,
			uint64_t need)
{
	static const char *const none = "";
	char abs[PATH_CAP], text[PATH_CAP * 2 + 512];
	struct sf_buf b = { text, 0, sizeof text };
	const struct sf_ll_rule *rule = NULL;
	uint64_t right;
	int layer = -1;

	if (absolute(dfd, path, abs) < 0)
		return;
	for (right = 1; right <= need && layer < 0; right <<= 1) {
		const char *at = abs;
		char dir[PATH_CAP];

		if (!(need & right))
			continue;
		if (right & IN_DIR) { /* made or removed in its directory */
			size_t n = sf_strlen(abs);

			while (n > 1 && abs[n - 1] != '/')
				n--;
			sf_memcpy(dir, abs, n);
			dir[n > 1 ? n - 1 : 1] = '\0';
			at = dir;
		}
		if ((layer = denying_layer(ll, right, at, 0, &rule)) >= 0) {
			put_head(&b, nr);
			sf_put_list(&b, (const char *const[]){ "\"", path, "\"",
							      path[0] == '/' ? none : " (",
							      path[0] == '/' ? none : abs,
							      path[0] == '/' ? none : ")", " needs ",
							      sf_ll_right_name(right, 0), NULL });
			put_rule(&b, ll, rule, right_name(right, 0));
			sf_puts(&b, at);
			emit(&b);
		}
	}
}

static void report_port(const struct sf_landlock *ll, long nr, const void *addr, long len)
{
	const struct sockaddr_in *sin = addr;
	uint64_t right = nr == SYS_bind ? SF_NET_BIND : SF_NET_CONNECT;
	const struct sf_ll_rule *rule = NULL;
	char text[512];
	struct sf_buf b = { text, 0, sizeof text };
	int port;

	if (!addr || len < (long)sizeof *sin ||
	    (sin->sin_family != AF_INET && sin->sin_family != AF_INET6))
		return;
	port = ((sin->sin_port & 0xff) << 8) | (sin->sin_port >> 8);
	if (denying_layer(ll, right, NULL, port, &rule) < 0)
		return;
	put_head(&b, nr);
	sf_puts(&b, "TCP port ");
	sf_putu(&b, (uint64_t)port);
	put_rule(&b, ll, rule, right_name(right, 1));
	sf_putu(&b, (uint64_t)port);
	emit(&b);
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
