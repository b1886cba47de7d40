/* Landlock's denials from the kernel's audit records (llrecords.h). */
#include <linux/audit.h>
#include <linux/netlink.h>
#include <string.h>

#include "internal.h"
#include "llrecords.h"
#include "mem.h"

void sf_audit_get_request(void *msg)
{
	struct nlmsghdr h = { .nlmsg_len = NLMSG_LENGTH(0), .nlmsg_type = AUDIT_GET,
			      .nlmsg_flags = NLM_F_REQUEST };

	_Static_assert(NLMSG_LENGTH(0) == SF_AUDIT_GET_LEN, "an AUDIT_GET request's length");
	memcpy(msg, &h, sizeof h);
}

int sf_audit_get_reply(const void *msg, size_t n)
{
	struct nlmsghdr h;
	struct audit_status s;

	if (n < NLMSG_LENGTH(offsetof(struct audit_status, failure)))
		return -1;
	memcpy(&h, msg, sizeof h);
	if (h.nlmsg_type != AUDIT_GET)
		return -1;
	memset(&s, 0, sizeof s);
	memcpy(&s, (const char *)msg + NLMSG_HDRLEN,
	       n - NLMSG_HDRLEN < sizeof s ? n - NLMSG_HDRLEN : sizeof s);
	return s.enabled != 0;
}

const char *sf_rec_field(const char *msg, const char *key)
{
	size_t klen = strlen(key);
	const char *p;

	for (p = msg; (p = strchr(p, key[0])) != NULL; p++)
		if (p > msg && p[-1] == ' ' && strncmp(p, key, klen) == 0 && p[klen] == '=')
			return p + klen + 1;
	return NULL;
}

uint64_t sf_rec_num(const char *v, unsigned base)
{
	uint64_t n = 0;
	int d;

	for (; (unsigned)(d = sf_digit_value((unsigned char)*v)) < base; v++)
		n = n * base + (unsigned)d;
	return n;
}

size_t sf_rec_untrusted(const char *v, char *out, size_t cap)
{
	size_t n = 0;

	if (*v == '"') {
		for (v++; *v && *v != '"' && n + 1 < cap; v++)
			out[n++] = *v;
	} else {
		for (; sf_digit_value((unsigned char)v[0]) < 16 &&
		       sf_digit_value((unsigned char)v[1]) < 16 && n + 1 < cap; v += 2)
			out[n++] = (char)(sf_digit_value((unsigned char)v[0]) * 16 +
					  sf_digit_value((unsigned char)v[1]));
	}
	out[n] = '\0';
	return n;
}

int sf_llrec_init(struct sf_llrec *r, size_t cap)
{
	r->ev = sf_mem_alloc(cap * sizeof *r->ev);
	r->cap = r->ev ? cap : 0;
	r->nev = 0;
	return r->ev ? 0 : -1;
}

void sf_llrec_free(struct sf_llrec *r)
{
	if (r->ev)
		sf_mem_free(r->ev, r->cap * sizeof *r->ev);
	r->ev = NULL;
	r->nev = r->cap = 0;
}

static int known(const uint64_t *set, unsigned n, uint64_t d)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (set[i] == d)
			return 1;
	return 0;
}

int sf_llrec_waiting(const struct sf_llrec *r)
{
	/* every denial's record comes before the barrier's */
	return r->barrier ? !r->barrier_seen : r->nours > r->ndead;
}

/* Event i is done: reported when its domain is ours, dropped when it is
 * another's, kept until its domain shows otherwise (or force). */
static void settle(struct sf_llrec *r, size_t i, int force)
{
	struct sf_llrec_event *e = &r->ev[i];
	int ours = known(r->ours, r->nours, e->domain);

	if (!ours && !known(r->theirs, r->ntheirs, e->domain) && !force)
		return;
	if (ours && r->denied)
		r->denied(r->ctx, e);
	if (i != --r->nev)
		memcpy(e, &r->ev[r->nev], sizeof *e);
}

/* Events of serials other than this one are complete (all: every one). */
static void settle_before(struct sf_llrec *r, uint64_t serial, int all)
{
	size_t i = r->nev;

	while (i-- > 0)
		if (all || r->ev[i].serial != serial)
			settle(r, i, 0);
}

void sf_llrec_flush(struct sf_llrec *r)
{
	while (r->nev)
		settle(r, r->nev - 1, 1);
}

static void on_access(struct sf_llrec *r, uint64_t serial, const char *msg)
{
	const char *b = sf_rec_field(msg, "blockers"), *v;
	struct sf_llrec_event *e;
	size_t n;

	if (!b || !r->cap)
		return;
	if (r->nev == r->cap) /* full: the oldest goes as it is */
		settle(r, 0, 1);
	e = &r->ev[r->nev];
	memset(e, 0, sizeof *e);
	e->serial = serial;
	e->domain = (v = sf_rec_field(msg, "domain")) ? sf_rec_num(v, 16) : 0;
	e->ino = (v = sf_rec_field(msg, "ino")) ? sf_rec_num(v, 10) : 0;
	for (n = 0; b[n] && b[n] != ',' && b[n] != ' '; n++)
		;
	e->right = sf_ll_right_of(b, n, &e->net);
	if (!e->right)
		return;
	if (e->net) {
		if (!(v = sf_rec_field(msg, e->right == SF_NET_BIND ? "src" : "dest")))
			return;
		e->port = (int)sf_rec_num(v, 10);
	} else {
		if (!(v = sf_rec_field(msg, "path")))
			return;
		sf_rec_untrusted(v, e->path, sizeof e->path);
		if (e->path[0] != '/') /* a name without its directory */
			return;
	}
	r->nev++;
}

static void on_syscall(struct sf_llrec *r, uint64_t serial, const char *msg)
{
	const char *v;
	size_t i;
	unsigned k;

	for (i = 0; i < r->nev; i++) {
		struct sf_llrec_event *e = &r->ev[i];

		if (e->serial != serial)
			continue;
		e->pid = (v = sf_rec_field(msg, "pid")) ? (long)sf_rec_num(v, 10) : 0;
		e->nr = (v = sf_rec_field(msg, "syscall")) ? (long)sf_rec_num(v, 10) : -1;
		for (k = 0; k < 4; k++) {
			char key[3] = { 'a', (char)('0' + k), '\0' };
			e->a[k] = (v = sf_rec_field(msg, key)) ? sf_rec_num(v, 16) : 0;
		}
		if ((v = sf_rec_field(msg, "comm"))) {
			sf_rec_untrusted(v, e->comm, sizeof e->comm);
			e->proc = 1;
		}
	}
}

/* The leaf name a directory given as dir (a PATH record's name of the
 * PARENT kind: "b/", "/tmp/b/", or the working directory in full when the
 * program gave a bare name) was completed with: cand is accepted when it
 * is dir's text followed by one name. */
static int completes(const char *dir, const char *cand)
{
	size_t n = strlen(dir);

	if (n == 0 || dir[n - 1] != '/')
		n = 0; /* a bare name, in the working directory */
	return strncmp(cand, dir, n) == 0 && cand[n] && !strchr(cand + n, '/') &&
	       strcmp(cand + n, ".") != 0 && strcmp(cand + n, "..") != 0;
}

static void complete_with(struct sf_llrec_event *e, const char *cand)
{
	size_t n = strlen(cand);

	if (n >= sizeof e->given)
		return;
	memcpy(e->given, cand, n + 1);
	e->leaf = 1;
}

/* The program's name for the object made or removed in a directory: the
 * string its call passed, read from its memory while it still runs (one
 * of the syscall's first arguments that completes the directory). */
static void complete_from_memory(struct sf_llrec *r, struct sf_llrec_event *e)
{
	char s[SF_LLREC_PATH];
	unsigned i;

	for (i = 0; i < 4 && !e->leaf; i++) {
		size_t n = e->a[i] ? r->read_mem(r->ctx, e->pid, e->a[i], s, sizeof s - 1) : 0;

		s[n] = '\0';
		if (n && strlen(s) < n && completes(e->given, s))
			complete_with(e, s);
	}
}

/* ... else the one argument of its command line that completes it. */
static void complete_from_argv(struct sf_llrec_event *e)
{
	const char *arg, *found = NULL;

	for (arg = e->argv; arg < e->argv + e->argv_len; arg += strlen(arg) + 1)
		if (completes(e->given, arg)) {
			if (found && strcmp(found, arg) != 0)
				return; /* two candidates: name neither */
			found = arg;
		}
	if (found)
		complete_with(e, found);
}

/* A name the call looked up: the program's name for the object the
 * kernel checked when the inode is the same.  For a file made in a
 * directory the record names the directory only ("b/" of "b/x"). */
static void on_path(struct sf_llrec *r, uint64_t serial, const char *msg)
{
	const char *v = sf_rec_field(msg, "name"), *type = sf_rec_field(msg, "nametype");
	const char *ino = sf_rec_field(msg, "inode");
	size_t i;

	if (!v || !type || !ino)
		return;
	for (i = 0; i < r->nev; i++) {
		struct sf_llrec_event *e = &r->ev[i];

		if (e->serial != serial || e->net || e->given[0] || e->ino != sf_rec_num(ino, 10))
			continue;
		sf_rec_untrusted(v, e->given, sizeof e->given);
		e->dir_given = strncmp(type, "PARENT", 6) == 0;
		if (e->dir_given && e->proc && r->read_mem)
			complete_from_memory(r, e);
	}
}

/* The command line (NUL-separated, in hex, or quoted when it is one
 * printable word). */
static void on_proctitle(struct sf_llrec *r, uint64_t serial, const char *msg)
{
	const char *v = sf_rec_field(msg, "proctitle");
	size_t i;

	for (i = 0; v && i < r->nev; i++)
		if (r->ev[i].serial == serial)
			r->ev[i].argv_len = sf_rec_untrusted(v, r->ev[i].argv, sizeof r->ev[i].argv);
}

static void on_domain(struct sf_llrec *r, const char *msg)
{
	const char *v = sf_rec_field(msg, "domain"), *status = sf_rec_field(msg, "status");
	uint64_t d = v ? sf_rec_num(v, 16) : 0;

	if (!status)
		return;
	if (strncmp(status, "deallocated", 11) == 0) {
		r->ndead += known(r->ours, r->nours, d);
		return;
	}
	if (known(r->ours, r->nours, d) || known(r->theirs, r->ntheirs, d))
		return;
	if ((v = sf_rec_field(msg, "pid")) && (long)sf_rec_num(v, 10) == r->creator) {
		if (r->nours < sizeof r->ours / sizeof r->ours[0])
			r->ours[r->nours++] = d;
	} else {
		/* forget the oldest: a domain of another tree is only a
		 * shortcut for dropping its records */
		if (r->ntheirs == sizeof r->theirs / sizeof r->theirs[0])
			r->ntheirs = 0;
		r->theirs[r->ntheirs++] = d;
	}
}

void sf_llrec_record(struct sf_llrec *r, int type, const char *msg)
{
	const char *colon = strchr(msg, ':');
	uint64_t serial;

	if (strncmp(msg, "audit(", 6) != 0 || !colon)
		return;
	serial = sf_rec_num(colon + 1, 10);
	switch (type) {
	case SF_AUDIT_LANDLOCK_ACCESS:
		settle_before(r, serial, 0);
		on_access(r, serial, msg);
		break;
	case SF_AUDIT_SYSCALL:
		on_syscall(r, serial, msg);
		break;
	case SF_AUDIT_PATH:
		on_path(r, serial, msg);
		break;
	case SF_AUDIT_PROCTITLE:
		on_proctitle(r, serial, msg);
		break;
	case SF_AUDIT_LANDLOCK_DOMAIN:
		on_domain(r, msg);
		break;
	case SF_AUDIT_EOE:
		settle_before(r, serial, 1);
		break;
	case SF_AUDIT_EVENT_LISTENER: {
		const char *pid = sf_rec_field(msg, "pid"), *op = sf_rec_field(msg, "op");

		if (r->barrier && pid && (long)sf_rec_num(pid, 10) == r->barrier && op &&
		    strncmp(op, "disconnect", 10) == 0)
			r->barrier_seen = 1;
		break;
	}
	}
}

void sf_llrec_denial(struct sf_llrec_event *e, struct sf_ll_denial *d, char full[SF_LLREC_PATH])
{
	memset(d, 0, sizeof *d);
	d->comm = e->proc ? e->comm : NULL;
	d->pid = e->proc ? e->pid : 0;
	d->nr = e->proc ? e->nr : -1;
	d->right = e->right;
	d->port = e->port;
	if (e->net)
		return;
	d->path = e->path;
	d->at_len = strlen(e->path);
	if (!e->given[0])
		return;
	if (e->dir_given && !e->leaf)
		complete_from_argv(e);
	d->given = e->given;
	if (e->dir_given && e->leaf) {
		/* the directory the kernel checked, and the program's leaf */
		const char *slash = strchr(e->given, '/'), *leaf = e->given;
		size_t n, l;

		for (; slash; slash = strchr(slash + 1, '/'))
			leaf = slash + 1;
		n = d->at_len;
		l = strlen(leaf);
		if (n + 1 + l < SF_LLREC_PATH) {
			memcpy(full, e->path, n);
			full[n] = '/';
			memcpy(full + n + 1, leaf, l + 1);
			d->path = full;
		}
	}
}
