/* The fs. rules learn proposes (learnfs.h): from the paths a run used to
 * rules a reader can check, as narrow as the run shows where it wrote,
 * and collapsed where it only read what every program reads.
 *
 * Landlock names what exists when the rulesets are made: a rule on a
 * path that cannot be opened grants nothing.  So what a run made (a
 * file, a directory) is never named; its rights go to the directory it
 * was made in, which must exist for the run to make it.  A file the run
 * wrote that was there before is named itself. */
#include <stdlib.h>
#include <string.h>

#include "fnv.h"
#include "landlock.h"
#include "learnfs.h"

#define READS (SF_FS_READ_FILE | SF_FS_READ_DIR)
#define WRITES (SF_FS_WRITE_FILE | SF_FS_TRUNCATE)
#define FIRST_SINGLE_RIGHT 3 /* sf_ll_rights[0..2]: the shorthands */

/* Where every program reads: the system's programs, libraries, settings,
 * and the kernel's views.  /dev is not one: a device is read or written
 * by name (/dev/null, /dev/urandom), and reading all of them is another
 * matter. */
const char *const fs_read_roots[] = {
	"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/opt",
	"/proc", "/sys", NULL,
};

static uint64_t hash(const char *s, unsigned flags)
{
	return sf_fnv1a(SF_FNV1A_BASIS ^ flags, s, strlen(s));
}

static size_t *slot_of(const struct fs_uses *u, const char *path, unsigned flags)
{
	size_t i = (size_t)hash(path, flags) & (u->slots - 1);

	for (;; i = (i + 1) & (u->slots - 1)) {
		size_t k = u->index[i];
		if (!k || (u->v[k - 1].flags == flags && strcmp(u->v[k - 1].path, path) == 0))
			return &u->index[i];
	}
}

static int grow_index(struct fs_uses *u)
{
	size_t slots = u->slots ? u->slots * 2 : 64, *old = u->index, oslots = u->slots, i;

	u->index = calloc(slots, sizeof(*u->index));
	if (!u->index) {
		u->index = old;
		return -1;
	}
	u->slots = slots;
	for (i = 0; i < oslots; i++)
		if (old[i])
			*slot_of(u, u->v[old[i] - 1].path, u->v[old[i] - 1].flags) = old[i];
	free(old);
	return 0;
}

int fs_uses_add(struct fs_uses *u, const char *path, uint64_t access, unsigned flags)
{
	size_t *slot;

	if ((u->n + 1) * 2 > u->slots && grow_index(u) < 0)
		return -1;
	slot = slot_of(u, path, flags);
	if (*slot) {
		u->v[*slot - 1].access |= access;
		return 0;
	}
	if (u->n == u->cap) {
		size_t cap = u->cap ? 2 * u->cap : 32;
		void *p = realloc(u->v, cap * sizeof(*u->v));
		if (!p)
			return -1;
		u->v = p;
		u->cap = cap;
	}
	u->v[u->n].path = strdup(path);
	if (!u->v[u->n].path)
		return -1;
	u->v[u->n].access = access;
	u->v[u->n].flags = flags;
	*slot = ++u->n;
	return 0;
}

uint64_t fs_uses_get(const struct fs_uses *u, const char *path, unsigned flags)
{
	size_t k;

	if (!u->slots)
		return 0;
	k = *slot_of(u, path, flags);
	return k ? u->v[k - 1].access : 0;
}

void fs_uses_free(struct fs_uses *u)
{
	size_t i;

	for (i = 0; i < u->n; i++)
		free(u->v[i].path);
	free(u->v);
	free(u->index);
	memset(u, 0, sizeof(*u));
}

/* The length of path's parent ("/a/b" -> 2, "/a" -> 1). */
static size_t parent_len(const char *path, size_t len)
{
	while (len > 1 && path[len - 1] != '/')
		len--;
	return len > 1 ? len - 1 : 1;
}

/* Whether path (len bytes of it) is prefix itself or beneath it. */
static int beneath(const char *path, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(path, prefix, n) == 0 && (len == n || path[n] == '/');
}

/* Whether the language can write a path: quoted when it holds a blank,
 * ';' or '#', and then it cannot hold '"'; never a control character
 * but a tab. */
static size_t spellable_len(const char *path, size_t len)
{
	size_t i, good = 1;
	int quote = 0, dq = 0;

	for (i = 0; i <= len; i++) {
		unsigned char c;

		if (i == len || (i && path[i] == '/')) {
			if (quote && dq)
				break;
			good = i;
			if (i == len)
				break;
		}
		c = (unsigned char)path[i];
		if (c < ' ' && c != '\t')
			break;
		quote |= c == ' ' || c == '\t' || c == ';' || c == '#';
		dq |= c == '"';
	}
	return good;
}

/* Where a run's use of path goes (into buf, len bytes): above what the
 * run made, and spellable. */
static size_t place(const struct fs_uses *made, const char *path, char *buf)
{
	size_t len = strlen(path), i;

	memcpy(buf, path, len + 1);
	/* the shortest prefix the run made: its parent */
	for (i = 1; i <= len && made->n; i++) {
		if (i < len && buf[i] != '/')
			continue;
		buf[i] = '\0';
		if (fs_uses_get(made, buf, FSU_MADE)) {
			len = parent_len(buf, i);
			break;
		}
		buf[i] = path[i];
	}
	len = spellable_len(buf, len);
	buf[len] = '\0';
	return len;
}

/* A process's files (/proc/<pid>/...) and a terminal (/dev/pts/<n>) have
 * other names in every run. */
static size_t unpin(char *buf, size_t len)
{
	if (beneath(buf, len, "/proc") && len > 6 && buf[6] >= '0' && buf[6] <= '9')
		len = 5;
	else if (beneath(buf, len, "/dev/pts") && len > 8)
		len = 8;
	buf[len] = '\0';
	return len;
}

static const char *read_root(const char *path, size_t len)
{
	unsigned i;

	for (i = 0; fs_read_roots[i]; i++)
		if (beneath(path, len, fs_read_roots[i]))
			return fs_read_roots[i];
	return NULL;
}

/* Several entries of one directory read (or written): the directory. */
static int gather(struct fs_uses *t, uint64_t class)
{
	struct fs_uses dirs = { 0 };
	size_t i, n = t->n;
	char *buf;
	int rc = 0;

	/* count the entries of each directory that have the class */
	for (i = 0; i < n && rc == 0; i++) {
		const char *p = t->v[i].path;
		size_t len = strlen(p), pl = parent_len(p, len);

		if (!(t->v[i].access & class) || pl <= 1 || read_root(p, len) ||
		    beneath(p, len, "/dev"))
			continue;
		if (!(buf = strndup(p, pl)) || fs_uses_add(&dirs, buf, 0, 0) < 0)
			rc = -1;
		else
			dirs.v[*slot_of(&dirs, buf, 0) - 1].access++;
		free(buf);
	}
	for (i = 0; i < n && rc == 0; i++) {
		const char *p = t->v[i].path;
		size_t len = strlen(p), pl = parent_len(p, len);
		uint64_t moved = t->v[i].access & class;

		if (!moved || pl <= 1 || read_root(p, len) || beneath(p, len, "/dev"))
			continue;
		if (!(buf = strndup(p, pl))) {
			rc = -1;
			break;
		}
		if (fs_uses_get(&dirs, buf, 0) >= FS_SEVERAL) {
			t->v[i].access &= ~moved;
			rc = fs_uses_add(t, buf, moved, 0);
		}
		free(buf);
	}
	fs_uses_free(&dirs);
	return rc;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct fs_use *)a)->path, ((const struct fs_use *)b)->path);
}

/* What of access to keep where above is granted already: the rest, and
 * of a shorthand (fs.exec, fs.read, fs.write) that access has whole and
 * keeps a part of, all of it, which reads better than its parts. */
static uint64_t kept(uint64_t access, uint64_t above)
{
	uint64_t left = access & ~above;
	unsigned i;

	for (i = 0; i < FIRST_SINGLE_RIGHT; i++) {
		uint64_t g = sf_ll_rights[i].access;
		if ((access & g) == g && (left & g))
			left |= g;
	}
	return left;
}

/* Drops what an entry above grants already, then empty entries; sorts. */
static int prune(struct fs_uses *t, struct fs_uses *out)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		char *p = strdup(t->v[i].path);
		size_t len = strlen(t->v[i].path);
		uint64_t above = 0;

		if (!p)
			return -1;
		while (len > 1) {
			len = parent_len(p, len);
			p[len] = '\0';
			above |= fs_uses_get(t, p, 0);
		}
		free(p);
		t->v[i].access = kept(t->v[i].access, above);
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_path);
	for (i = 0; i < t->n; i++)
		if (t->v[i].access && fs_uses_add(out, t->v[i].path, t->v[i].access, 0) < 0)
			return -1;
	return 0;
}

int fs_rules_of(const struct fs_uses *uses, struct fs_uses *out)
{
	struct fs_uses made = { 0 }, t = { 0 };
	size_t i;
	int rc = 0;
	char *buf = NULL;

	for (i = 0; i < uses->n && rc == 0; i++)
		if (uses->v[i].flags & FSU_MADE)
			rc = fs_uses_add(&made, uses->v[i].path, 1, FSU_MADE);
	for (i = 0; i < uses->n && rc == 0; i++) {
		const struct fs_use *u = &uses->v[i];
		uint64_t access = u->access, reads;
		const char *root;
		size_t len;

		if (u->flags & FSU_RULE || !access)
			continue;
		free(buf);
		if (!(buf = malloc(strlen(u->path) + 1))) {
			rc = -1;
			break;
		}
		len = unpin(buf, place(&made, u->path, buf));
		reads = access & READS;
		if (reads && (root = read_root(buf, len))) {
			/* the root whole: its files and directories */
			rc = fs_uses_add(&t, root, READS, 0);
			/* a program keeps its fs.exec whole: execute alone
			 * reads worse */
			access &= ~(access & SF_FS_EXECUTE ? SF_FS_READ_DIR : READS);
		}
		if (access && rc == 0)
			rc = fs_uses_add(&t, buf, access, 0);
	}
	free(buf);
	if (rc == 0)
		rc = gather(&t, READS);
	if (rc == 0)
		rc = gather(&t, WRITES);
	for (i = 0; i < uses->n && rc == 0; i++)
		if (uses->v[i].flags & FSU_RULE)
			rc = fs_uses_add(&t, uses->v[i].path, uses->v[i].access, 0);
	if (rc == 0)
		rc = prune(&t, out);
	fs_uses_free(&made);
	fs_uses_free(&t);
	return rc;
}

static void put_path(char **o, const char *path)
{
	int quote = strpbrk(path, " \t;#") != NULL;

	if (quote)
		*(*o)++ = '"';
	*o = stpcpy(*o, path);
	if (quote)
		*(*o)++ = '"';
}

char *fs_rules_text(const struct fs_uses *rules)
{
	size_t cap = 1, i;
	uint64_t bit;
	char *text, *o;

	for (i = 0; i < rules->n; i++)
		cap += 16 * (strlen(rules->v[i].path) + 24);
	if (!(o = text = malloc(cap)))
		return NULL;
	for (i = 0; i < rules->n; i++)
		for (bit = 1; bit <= SF_FS_ALL; bit <<= 1) {
			if (!(rules->v[i].access & bit))
				continue;
			o = stpcpy(o, sf_ll_right_name(bit, 0));
			o = stpcpy(o, ": ");
			put_path(&o, rules->v[i].path);
			*o++ = '\n';
		}
	*o = '\0';
	return text;
}
