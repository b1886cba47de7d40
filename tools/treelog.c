/* Reports and the log summary of a tree (treelog.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <syslog.h>
#include <unistd.h>

#include "eval.h"
#include "secfilter.h"
#include "treelog.h"

int treelog_init(struct treelog *t, const struct sf_policy *p, int log)
{
	const char *dest = getenv("SECFILTER_LOG");

	memset(t, 0, sizeof(*t));
	t->p = p;
	t->log = log;
	t->fd = 2;
	t->progs = xmalloc(sizeof(*t->progs));
	learned_init(t->progs, SF_ARGS_AUTO);
	if (dest && strcmp(dest, "syslog") == 0) {
		openlog("secfilter", LOG_PID, LOG_USER);
		t->fd = -1;
	} else if (dest && dest[0] == '/') {
		t->fd = open(dest, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
		if (t->fd < 0) {
			tool_err("run: SECFILTER_LOG: cannot open '%s' to append reports: %s", dest,
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

void treelog_free(struct treelog *t)
{
	size_t i;

	for (i = 0; i < t->nll; i++)
		free(t->ll[i].fix);
	free(t->ll);
	free(t->e);
	if (t->progs)
		learned_free(t->progs);
	free(t->progs);
	if (t->fd > 2)
		close(t->fd);
}

void treelog_write(struct treelog *t, const char *s, size_t n)
{
	if (t->fd >= 0) {
		if (write_all(t->fd, s, n) < 0 && t->fd != 2) {
			/* said, and written to stderr instead: never lost silently */
			tool_perr("run: a report could not be written to SECFILTER_LOG=%s",
				  getenv("SECFILTER_LOG"));
			write_all(2, s, n);
		}
		return;
	}
	while (n) { /* a line per message, as the library's syslog */
		size_t k = 0;
		while (k < n && s[k] != '\n')
			k++;
		syslog(LOG_WARNING, "%.*s", (int)k, s);
		s += k + (k < n);
		n -= k + (k < n);
	}
}

static struct sf_vsum *entry(struct treelog *t, long nr, int decision, int *fresh)
{
	size_t i;

	*fresh = 0;
	for (i = 0; i < t->n; i++)
		if (t->e[i].nr == nr && t->e[i].decision == decision)
			return &t->e[i];
	t->e = xgrow(t->e, &t->cap, t->n, sizeof(*t->e), 16);
	*fresh = 1;
	memset(&t->e[t->n], 0, sizeof(t->e[0]));
	t->e[t->n].nr = nr;
	t->e[t->n].decision = decision;
	sf_obs_init(&t->e[t->n].obs);
	return &t->e[t->n++];
}

void treelog_call(struct treelog *t, const struct sf_vcall *c)
{
	int fresh;
	struct sf_vsum *e = entry(t, c->nr, c->decision, &fresh);

	e->calls++;
	sf_obs_add(&e->obs, c->nr, c->a);
	if (c->nr >= 0 && c->nr < SF_NR_COUNT) {
		unsigned prog = learned_prog(t->progs, c->comm ? c->comm : "?");
		t->progs->r[c->nr].calls++;
		t->progs->r[c->nr].by_prog[prog]++;
	}
	if (fresh || !t->log) {
		char *buf = xmalloc(64 << 10);
		struct sf_out o = { buf, 64 << 10, 0 };
		const char *other = "a filter installed before this policy";

		if (c->logged && t->log != LOG_FULL && t->fd <= 2)
			sf_vreport_line(&o, c, other);
		else
			sf_vreport(&o, c, other);
		sf_out_end(&o);
		treelog_write(t, buf, strlen(buf));
		free(buf);
	}
}

void treelog_counted(struct treelog *t, long nr, int d, const char *comm, const struct sf_obs *o)
{
	int fresh;
	struct sf_vsum *e;
	unsigned prog;

	if (nr < 0 || nr >= SF_NR_COUNT || !o->calls)
		return;
	e = entry(t, nr, d, &fresh);
	e->calls += o->calls;
	sf_obs_merge(&e->obs, o);
	prog = learned_prog(t->progs, comm);
	t->progs->r[nr].calls += o->calls;
	t->progs->r[nr].by_prog[prog] += (uint32_t)o->calls;
}

int treelog_landlock(struct treelog *t, const char *fix, const char *comm, uint64_t count)
{
	size_t i;

	for (i = 0; i < t->nll; i++)
		if (strcmp(t->ll[i].fix, fix) == 0) {
			t->ll[i].count += count;
			return 0;
		}
	t->ll = xgrow(t->ll, &t->llcap, t->nll, sizeof(*t->ll), 8);
	t->ll[t->nll].fix = xstrdup(fix);
	snprintf(t->ll[t->nll].comm, sizeof(t->ll[0].comm), "%s", comm ? comm : "?");
	t->ll[t->nll].count = count;
	t->nll++;
	return 1;
}

void treelog_summary(struct treelog *t)
{
	uint64_t total = 0;
	unsigned kinds = 0;
	char *buf = NULL;
	size_t len = 0, i;
	long nr;
	FILE *f;

	if (!t->log || (!t->n && !t->nll))
		return;
	for (nr = 0; nr < SF_NR_COUNT; nr++)
		if (t->progs->r[nr].calls) {
			total += t->progs->r[nr].calls;
			kinds++;
		}
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	fputs("secfilter: log mode: ", f);
	if (t->n)
		fprintf(f, "%llu call%s the policy denies ran, of %u system call%s (each reported "
			   "once)", (unsigned long long)total, total == 1 ? "" : "s", kinds,
			kinds == 1 ? "" : "s");
	if (t->nll) /* Landlock has no log mode: those failed */
		fprintf(f, "%sLandlock denied %zu kind%s of access (log mode cannot let them "
			   "through)", t->n ? "; " : "", t->nll, t->nll == 1 ? "" : "s");
	fputs("; these lines let them run:\n", f);
	/* one line per syscall: every rule that denied it, every call */
	for (i = 0; i < t->n; i++) {
		char fix[4096];
		struct sf_out o = { fix, sizeof fix, 0 };

		if (!sf_vsum_fix(&o, t->p, t->e, t->n, i) || sf_out_end(&o) >= sizeof fix || !o.len)
			continue;
		fprintf(f, "    %-40s  ", fix);
		learned_count_comment(f, t->progs, &t->progs->r[t->e[i].nr]);
		fputc('\n', f);
	}
	for (i = 0; i < t->nll; i++)
		fprintf(f, "    %-40s  # denied by Landlock %llu time%s: %s\n", t->ll[i].fix,
			(unsigned long long)t->ll[i].count, t->ll[i].count == 1 ? "" : "s",
			t->ll[i].comm);
	if (fclose(f) == 0)
		treelog_write(t, buf, len);
	free(buf);
}
