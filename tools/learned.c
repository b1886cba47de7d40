/* The policy learn writes (learned.h): observations in, readable text out.
 *
 * The text, top to bottom: a header with the runs' commands (quoted so
 * that a shell reads them back), then one section per purpose -- the
 * first of systemd's groups (secfilter(7)) that has the syscall, in the
 * order of group_order below -- each rule with a comment that counts its
 * calls and names the programs that made them.  Whole groups are never
 * written as `@group: 1`: that would allow calls no run made, and hide
 * which ones did; the section's title names the group for whoever wants
 * to widen it so.
 *
 * Merging keeps it tight: a learned rule is read back into the
 * observation it was made from (sf_obs_of_filters), joined with the new
 * run's, and written again, as if all runs had been learned at once.  A
 * rule in another shape is kept as written and or'ed with what the new
 * runs need. */
#include <ctype.h>
#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "landlock.h"
#include "learned.h"
#include "secfilter.h"

/* Sections: a syscall goes under the first of these groups that has it. */
static const char *const group_order[] = {
	"@default", "@basic-io", "@file-system", "@io-event", "@network-io", "@ipc",
	"@process", "@signal", "@timer", "@clock", "@resources", "@memlock", "@sync",
	"@aio", "@chown", "@setuid", "@keyring", "@pkey", "@debug", "@cpu-emulation",
	"@mount", "@module", "@raw-io", "@reboot", "@swap", "@privileged", "@obsolete",
	"@system-service",
};
#define NGROUPS (sizeof group_order / sizeof group_order[0])

/* Calls that a run makes or not as timing has it, once the program has
 * done what brings them; the run learn watches is slowed by ptrace, so
 * the next one is timed otherwise.  Each family is allowed whole, with any
 * arguments, whenever its trigger was seen, made in this run or not. */
#define FAMILY_CALLS 2
#define TIMING_COMMENT "# 0 calls, but timing decides it where "

static const struct family {
	unsigned trigger;
	const char *where;        /* the trigger, for comments and the note */
	const char *calls[FAMILY_CALLS];
} families[] = {
	/* a thread waits for another (a join, a contended lock) or spins
	 * and yields (libuv's async handles) only when it is early */
	{ LT_THREADS, "there are threads", { "futex", "sched_yield" } },
	/* a handler returns through rt_sigreturn when a signal comes: a
	 * SIGTERM from outside, or a child's SIGCHLD */
	{ LT_HANDLER, "a signal handler is installed", { "rt_sigreturn" } },
	/* a SIGALRM handler is there for a timer someone arms, often on
	 * the way out (nginx waits for its workers so) */
	{ LT_ALARM, "a SIGALRM handler is installed", { "setitimer", "alarm" } },
	/* a sleep that a stop interrupts (SIGTSTP, SIGSTOP: ^Z, a debugger)
	 * resumes through restart_syscall when continued */
	{ LT_SLEEPS, "a call sleeps with a timeout", { "restart_syscall" } },
};
#define NFAMILIES (sizeof families / sizeof families[0])

/* The family that makes nr timing's in l's runs, or NULL. */
static const struct family *family_of(const struct learned *l, unsigned nr)
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);
	unsigned f, i;

	for (f = 0; sc && f < NFAMILIES; f++) {
		if (!(l->triggers & families[f].trigger))
			continue;
		for (i = 0; i < FAMILY_CALLS && families[f].calls[i]; i++)
			if (strcmp(families[f].calls[i], sc->name) == 0)
				return &families[f];
	}
	return NULL;
}

/* A learned rule's comment that says its family: the trigger, again. */
static void read_timing_comment(struct learned *l, const char *comment)
{
	unsigned f;

	if (strncmp(comment, TIMING_COMMENT, strlen(TIMING_COMMENT)) != 0)
		return;
	comment += strlen(TIMING_COMMENT);
	for (f = 0; f < NFAMILIES; f++)
		if (strcmp(comment, families[f].where) == 0)
			l->triggers |= families[f].trigger;
}

void learned_init(struct learned *l, enum sf_argmode mode)
{
	unsigned nr;

	memset(l, 0, sizeof(*l));
	l->mode = mode;
	for (nr = 0; nr < SF_NR_COUNT; nr++)
		sf_obs_init(&l->r[nr].obs);
}

void learned_free(struct learned *l)
{
	unsigned i;

	for (i = 0; i < SF_NR_COUNT; i++)
		free(l->r[i].opaque);
	for (i = 0; i < l->ncommands; i++)
		free(l->commands[i]);
	free(l->commands);
	fs_uses_free(&l->fs);
	free(l->fs_free);
	free(l->net_free);
}

/* The rules of ll, into the union's. */
static void add_ll_rules(struct learned *l, const struct sf_landlock *ll)
{
	uint32_t i;

	for (i = 0; ll && i < ll->nrules; i++) {
		const struct sf_ll_rule *r = &ll->rules[i];

		if (r->net)
			l->ports[r->port] |= (uint8_t)r->access;
		else if (fs_uses_add(&l->fs, ll->strings + r->path, r->access, FSU_RULE) < 0)
			tool_oom();
	}
}

/* What a learned policy says when its runs used no TCP port: it has no
 * net. rules, and yet it is no policy that leaves ports free. */
#define NO_PORTS_COMMENT "# TCP ports: none was bound or connected to"

/* A merged policy's file and port rules, into the union: its rules as
 * they are (a policy of several layers counts as the union of its
 * layers, which allows at least what it allowed).  text: its text, when
 * in secfilter's syntax, else NULL. */
static void merge_files(struct learned *l, const struct sf_policy *p, const char *source,
			const char *text)
{
	const struct sf_landlock *ll = p->landlock;
	unsigned handles = 0, i;

	for (i = 0; ll && i < ll->nlayers; i++)
		handles |= ll->handles[i];
	if (!(handles & SF_LL_FS) && !l->fs_free)
		l->fs_free = xstrdup(source);
	if (!(handles & SF_LL_NET) && !l->net_free &&
	    !(text && strstr(text, "\n" NO_PORTS_COMMENT)))
		l->net_free = xstrdup(source);
	if (handles & SF_LL_FS)
		l->fs_said++;
	add_ll_rules(l, ll);
}

unsigned learned_prog(struct learned *l, const char *comm)
{
	unsigned i;

	for (i = 0; i < l->nprogs; i++)
		if (strcmp(l->progs[i], comm) == 0)
			return i;
	if (l->nprogs == LP_PROGS)
		return LP_PROGS;
	snprintf(l->progs[l->nprogs], sizeof(l->progs[0]), "%s", comm);
	return l->nprogs++;
}

/* The calls whose sleep the kernel resumes through restart_syscall: the
 * ones with a timeout to keep counting (a poll without one, or a futex
 * wait, starts again as itself). */
static int sleeps_with_timeout(long nr, const uint64_t a[6])
{
	switch (nr) {
	case SYS_nanosleep:
	case SYS_clock_nanosleep:
		return 1;
	case SYS_poll:
		return (int)a[2] > 0;
	case SYS_futex:
		return ((a[1] & FUTEX_CMD_MASK) == FUTEX_WAIT ||
			(a[1] & FUTEX_CMD_MASK) == FUTEX_WAIT_BITSET) && a[3];
	}
	return 0;
}

void learned_call(struct learned *l, long nr, const uint64_t a[6], unsigned prog)
{
	struct lrule *r = &l->r[nr];

	if (sleeps_with_timeout(nr, a))
		l->triggers |= LT_SLEEPS;

	sf_obs_add(&r->obs, nr, a);
	sf_pairs_add(&r->pairs, nr, a);
	r->has_obs = 1;
	r->calls++;
	r->by_prog[prog <= LP_PROGS ? prog : LP_PROGS]++;
}

/* A word a POSIX shell reads as itself, or its single-quoted form. */
static int shell_safe(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_@%+=:,./-", *s))
			return 0;
	return 1;
}

char *shell_quote(char *const *argv)
{
	size_t len = 1, i;
	char *out, *p;
	const char *s;

	for (i = 0; argv[i]; i++)
		len += 3 + 4 * strlen(argv[i]);
	p = out = xmalloc(len);
	for (i = 0; argv[i]; i++) {
		if (i)
			*p++ = ' ';
		if (shell_safe(argv[i])) {
			p = stpcpy(p, argv[i]);
			continue;
		}
		*p++ = '\'';
		for (s = argv[i]; *s; s++) {
			if (*s == '\'')
				p = stpcpy(p, "'\\''");
			else if (*s == '\n')
				p = stpcpy(p, "'\"\n\"'"); /* never in a header line */
			else
				*p++ = *s;
		}
		*p++ = '\'';
	}
	*p = '\0';
	return out;
}

static void add_command_text(struct learned *l, const char *cmd)
{
	unsigned i;

	for (i = 0; i < l->ncommands; i++)
		if (strcmp(l->commands[i], cmd) == 0)
			return;
	l->commands = realloc(l->commands, (l->ncommands + 1) * sizeof(*l->commands));
	if (!l->commands) {
		tool_err("out of memory");
		exit(EX_SF_FAIL);
	}
	l->commands[l->ncommands++] = xstrdup(cmd);
}

void learned_command(struct learned *l, char *const *argv)
{
	char *q = shell_quote(argv);

	/* A newline would end the comment line the command is written in:
	 * such a command is written as a shell would read $'...'. */
	if (strchr(q, '\n')) {
		char *p;
		for (p = q; *p; p++)
			if (*p == '\n')
				*p = ' ';
	}
	add_command_text(l, q);
	free(q);
	l->runs++;
}

/* ---- reading what a policy or a log says ---- */

/* "# 32 calls: ls 30, sh 2" (or "# 1 call: ls"): the counts, into r. */
static void read_count_comment(struct learned *l, struct lrule *r, const char *c)
{
	unsigned long long n, k;
	char name[64], *end;
	int used;

	while (*c == ' ' || *c == '#')
		c++;
	if (!isdigit((unsigned char)*c))
		return;
	n = strtoull(c, &end, 10);
	if (strncmp(end, " call", 5) != 0)
		return;
	c = end + 5 + (end[5] == 's');
	r->calls += n;
	if (*c != ':')
		return;
	c++;
	for (;;) {
		unsigned prog;
		while (*c == ' ')
			c++;
		if (sscanf(c, "%63[^ ,\n]%n", name, &used) != 1)
			return;
		c += used;
		k = n;
		if (*c == ' ' && sscanf(c, " %llu%n", &k, &used) == 1)
			c += used;
		prog = strcmp(name, "others") == 0 ? LP_PROGS : learned_prog(l, name);
		r->by_prog[prog] += (uint32_t)k;
		if (*c != ',')
			return;
		c++;
	}
}

static char *join_texts(const struct sf_policy *p, const struct sf_sysrule *sr, unsigned nr)
{
	size_t cap = 16, len = 0;
	char *out = xmalloc(cap);
	unsigned i;

	out[0] = '\0';
	for (i = 0; i < sr->nfilters; i++) {
		const struct sf_filter *f = &p->filters[sf_rule_first(p, sr) + i];
		const char *t = sf_filter_text(p, f);
		char canon[4096];
		size_t need;

		if (!t) {
			sf_filter_print(p, nr, f, canon, sizeof canon);
			t = canon;
		}
		need = len + strlen(t) + 16;
		if (need > cap) {
			cap = need * 2;
			out = realloc(out, cap);
			if (!out) {
				tool_err("out of memory");
				exit(EX_SF_FAIL);
			}
		}
		len += (size_t)sprintf(out + len, sr->nfilters > 1 ? "%s(%s)" : "%s%s",
				       i ? " && " : "", t);
	}
	return out;
}

/* Joins what p's rule on nr stands for into r, when it is in a shape
 * learn writes (sf_obs_of_filters); 0 when not. */
static int merge_rule_obs(struct lrule *r, const struct sf_policy *p, unsigned nr)
{
	struct sf_obs o;
	struct sf_pairs pairs;

	if (!sf_obs_of_filters(&o, p, nr))
		return 0;
	sf_pairs_of_filters(&pairs, p, nr, &o);
	sf_obs_merge(&r->obs, &o);
	sf_pairs_merge(&r->pairs, &pairs);
	r->has_obs = 1;
	return 1;
}

/* Takes in what policy p says of every syscall. */
static void merge_policy(struct learned *l, const struct sf_policy *p, const char *source,
			 const char *text)
{
	unsigned nr, i;

	if (p->pending)
		l->pending = 1;
	if (p->dflt != SF_ACTION_KILL && !l->dflt)
		l->dflt = p->dflt;
	merge_files(l, p, source, text);
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		const struct sf_sysrule *sr = &p->sys[nr];
		struct lrule *r = &l->r[nr];

		if (!sr->allowed)
			continue;
		if (sr->ret) {
			if (!r->ret)
				r->ret = sr->ret;
			continue;
		}
		if (!sr->nfilters) {
			r->any = 1;
			continue;
		}
		if (merge_rule_obs(r, p, nr))
			continue;
		if (r->opaque) { /* two merged policies: or them */
			char *a = r->opaque, *b = join_texts(p, sr, nr);
			r->opaque = xmalloc(strlen(a) + strlen(b) + 16);
			sprintf(r->opaque, "(%s) || (%s)", a, b);
			free(a);
			free(b);
		} else {
			r->opaque = join_texts(p, sr, nr);
		}
		for (i = 0; i < sr->nfilters; i++)
			if (p->filters[sf_rule_first(p, sr) + i].fail && !r->fail)
				r->fail = p->filters[sf_rule_first(p, sr) + i].fail;
	}
}

/* The commands in a learned policy's header, and the counts in its rules'
 * comments. */
static void merge_comments(struct learned *l, const char *text)
{
	const char *line = text;
	int in_header = 0;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char *s = xmalloc(n + 1);

		memcpy(s, line, n);
		s[n] = '\0';
		if (strncmp(s, "# Learned by secfilter learn", 28) == 0) {
			in_header = 1;
		} else if (in_header && strncmp(s, "#   ", 4) == 0) {
			add_command_text(l, s + 4);
			l->runs++;
		} else {
			in_header = 0;
			if (strncmp(s, "sys_", 4) == 0 && strchr(s, '#')) {
				size_t w = strcspn(s + 4, ": \t");
				const struct sf_syscall *sc = sf_syscall_lookup(s + 4, w);
				if (sc)
					read_count_comment(l, &l->r[sc->nr], strchr(s, '#'));
				read_timing_comment(l, strchr(s, '#'));
			}
		}
		free(s);
		line += n + (end != NULL);
	}
}

/* A value as a report shows it: "O_WRONLY|O_CREAT (0x41)" -> 0x41,
 * "3" -> 3, "\"/etc\" (0x7ffd)" -> 0x7ffd.  0 if none. */
static int report_value(const char *v, uint64_t *out)
{
	const char *open = strrchr(v, '(');
	char *end;
	size_t n = strlen(v);

	if (n && v[n - 1] == ')' && open) {
		v = open + 1;
		n = strlen(v) - 1;
	}
	errno = 0;
	if (*v == '-')
		*out = (uint64_t)strtoll(v, &end, 0);
	else
		*out = strtoull(v, &end, 0);
	return !errno && end != v && (size_t)(end - v) == n;
}

/* "ls[123]: system call 257 (sys_openat) blocked at ip:7f..." (or "let
 * through at ip:", log mode's full report) -> comm, nr.  Log mode's
 * one-line form is not read: its summary lines count every call. */
static int report_header(const char *s, char *comm, size_t cap, long *nr)
{
	const char *p = strstr(s, "]: system call ");
	const char *b;

	if (!p || sscanf(p, "]: system call %ld", nr) != 1 ||
	    (!strstr(p, ") blocked at ip:") && !strstr(p, ") let through at ip:")))
		return 0;
	for (b = p; b > s && *b != '['; b--)
		;
	if (b == s)
		return 0;
	snprintf(comm, cap, "%.*s", (int)(b - s), s);
	return 1;
}

/* A log as the library and `run --log` write it: each report's header and
 * arguments is one call; each summary line is a rule in learn's own
 * format, whose comment counts the calls.  Returns how many of either it
 * found. */
static unsigned merge_log(struct learned *l, const char *text)
{
	const char *line = text;
	const struct sf_syscall *sc = NULL;
	uint64_t a[6] = { 0 };
	uint64_t reported[SF_NR_COUNT] = { 0 }, summed[SF_NR_COUNT] = { 0 };
	unsigned prog = 0, found = 0, nr;
	char comm[64];
	long cur = -1;

#define FLUSH()                                                              \
	do {                                                                 \
		if (cur >= 0 && sc) {                                        \
			sf_obs_add(&l->r[cur].obs, cur, a);                  \
			sf_pairs_add(&l->r[cur].pairs, cur, a);              \
			l->r[cur].has_obs = 1;                               \
			l->r[cur].by_prog[prog]++;                           \
			reported[cur]++;                                     \
		}                                                            \
		cur = -1;                                                    \
	} while (0)

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char *s = xmalloc(n + 1);
		long nr2;

		memcpy(s, line, n);
		s[n] = '\0';
		if (report_header(s, comm, sizeof comm, &nr2)) {
			FLUSH();
			found++;
			sc = sf_syscall_by_nr(nr2);
			if (sc) {
				cur = nr2;
				memset(a, 0, sizeof a);
				prog = learned_prog(l, comm);
			}
		} else if (cur >= 0 && strncmp(s, "    ", 4) == 0 && s[4] != ' ' && strstr(s, " = ")) {
			char *eq = strstr(s, " = ");
			int i;
			uint64_t v;
			*eq = '\0';
			i = sf_syscall_arg(sc, s + 4, strlen(s + 4));
			if (i >= 0 && report_value(eq + 3, &v))
				a[i] = v;
		} else if (strncmp(s, "    add: fs.", 12) == 0 || strncmp(s, "    add: net.", 13) == 0) {
			/* a Landlock denial's line to add: a rule of the union
			 * (learned.h: where files are restricted at all) */
			struct sf_policy *p = NULL;
			struct sf_error err;
			FLUSH();
			memset(&err, 0, sizeof err);
			if (sf_policy_apply(NULL, "<log>", s + 9, strlen(s + 9), &p, &err) == 0) {
				add_ll_rules(l, p->landlock);
				sf_policy_free(p);
				found++;
			}
		} else if (strncmp(s, "    sys_", 8) == 0) {
			/* a summary line: a rule, and its count */
			struct sf_policy *p = NULL;
			struct sf_error err;
			size_t w = strcspn(s + 8, ": \t");
			const struct sf_syscall *ssc = sf_syscall_lookup(s + 8, w);
			char *hash = strchr(s, '#');
			FLUSH();
			if (ssc) {
				struct lrule tmp;
				memset(&tmp, 0, sizeof tmp);
				if (hash)
					read_count_comment(l, &tmp, hash);
				summed[ssc->nr] += tmp.calls;
				for (nr = 0; nr <= LP_PROGS; nr++)
					l->r[ssc->nr].by_prog[nr] += tmp.by_prog[nr];
				memset(&err, 0, sizeof err);
				if (sf_policy_apply(NULL, "<log>", s, strlen(s), &p, &err) == 0) {
					merge_rule_obs(&l->r[ssc->nr], p, ssc->nr);
					sf_policy_free(p);
				}
				found++;
			}
		} else if (s[0] != ' ') {
			FLUSH();
		}
		free(s);
		line += n + (end != NULL);
	}
	FLUSH();
#undef FLUSH
	/* a summary counts every call; its process's reports only the
	 * first of each kind */
	for (nr = 0; nr < SF_NR_COUNT; nr++)
		l->r[nr].calls += summed[nr] > reported[nr] ? summed[nr] : reported[nr];
	return found;
}

/* A minijail or OCI file, as check reads it: a policy, never a log. */
static int merge_other_syntax(struct learned *l, const char *path)
{
	struct policy_in in;
	struct sf_policy *p = NULL;
	int rc = policy_in_load(&in, "learn", path, NULL, SYNTAX_BY_NAME);

	if (!rc)
		rc = policy_in_parse(&in, &p);
	if (!rc) {
		merge_policy(l, p, path, NULL);
		sf_policy_free(p);
	}
	policy_in_free(&in);
	return rc;
}

int learned_merge_file(struct learned *l, const char *path)
{
	struct sf_policy *p = NULL;
	struct sf_error err;
	char *text;
	size_t len;
	int rc;

	if (sf_syntax_of(path) != SF_SYNTAX_SECFILTER)
		return merge_other_syntax(l, path);
	rc = read_path(path, SF_MAX_TEXT * 16, &text, &len);
	if (rc < 0) {
		errno = -rc;
		tool_perr("learn: %s", path);
		return EX_SF_FAIL;
	}
	if (memchr(text, '\0', len)) {
		tool_err("learn: %s: not a policy or a log (it has NUL bytes)", path);
		free(text);
		return EX_SF_POLICY;
	}
	memset(&err, 0, sizeof err);
	rc = len <= SF_MAX_TEXT ? sf_policy_apply_src(NULL, path, SF_SRC_FILE, text, len, &p, &err)
				: -E2BIG;
	if (rc == 0) {
		merge_policy(l, p, path, text);
		merge_comments(l, text);
		sf_policy_free(p);
		free(text);
		return 0;
	}
	/* not a policy: a log? */
	if (merge_log(l, text)) {
		l->runs++;
		free(text);
		return 0;
	}
	if (err.text[0])
		fputs(err.text, stderr);
	tool_err("learn: %s is neither a policy nor a log of violations", path);
	free(text);
	return EX_SF_POLICY;
}

/* ---- writing ---- */

struct text {
	char *buf;
	size_t len;
	FILE *f;
};

static const char *action_name(unsigned a, char *buf, size_t cap)
{
	switch (a) {
	case SF_ACTION_LOG: return "log";
	case SF_ACTION_TRAP: return "trap";
	case SF_ACTION_KILL: return "kill";
	}
	snprintf(buf, cap, "return %s", sf_errno_name(a) ? sf_errno_name(a) : "");
	if (!sf_errno_name(a))
		snprintf(buf, cap, "return %u", a);
	return buf;
}

/* The right-hand side of nr's rule (malloc'd), or NULL when not allowed. */
static char *rule_of(const struct learned *l, unsigned nr)
{
	const struct lrule *r = &l->r[nr];
	char *synth = NULL, *out;
	char ebuf[32];
	size_t cap = 8192;

	if (r->any)
		return xstrdup("1");
	if (!r->has_obs && !r->opaque)
		return r->ret ? xstrdup(action_name(r->ret, ebuf, sizeof ebuf)) : NULL;
	if (r->has_obs) {
		struct sf_out o;
		synth = xmalloc(cap);
		o = (struct sf_out){ synth, cap, 0 };
		sf_suggest_pairs(&o, nr, &r->obs, &r->pairs, l->mode);
		sf_out_end(&o);
		if (!r->opaque || strcmp(synth, "1") == 0)
			return synth;
	}
	out = xmalloc(strlen(r->opaque) + (synth ? strlen(synth) : 0) + 64);
	if (synth)
		sprintf(out, "(%s) || (%s)", r->opaque, synth);
	else
		strcpy(out, r->opaque);
	if (r->fail)
		sprintf(out + strlen(out), " else %s", action_name(r->fail, ebuf, sizeof ebuf));
	free(synth);
	return out;
}

void learned_timing_note(const struct learned *l)
{
	unsigned nr, n = 0;

	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		const struct family *fam = family_of(l, nr);
		uint64_t calls = l->r[nr].calls;
		char made[48];

		if (!fam)
			continue;
		if (!n++)
			tool_err("learn: note: timing decides whether a run makes these calls; "
				 "they are allowed with any arguments:");
		snprintf(made, sizeof made, "%llu call%s", (unsigned long long)calls,
			 calls == 1 ? "" : "s");
		tool_err("learn:   %-15s %s, since %s", sf_syscall_by_nr(nr)->name,
			 calls ? made : "not made", fam->where);
	}
	tool_err("learn: note: calls that depend on timing in other ways are not known: "
		 "a run may need one this one did not make; add runs with --merge");
}

void learned_count_comment(FILE *f, const struct learned *l, const struct lrule *r)
{
	unsigned order[LP_PROGS + 1], n = 0, i, j, shown = 0;

	fprintf(f, "# %llu call%s", (unsigned long long)r->calls, r->calls == 1 ? "" : "s");
	for (i = 0; i <= LP_PROGS; i++)
		if (r->by_prog[i])
			order[n++] = i;
	for (i = 1; i < n; i++) /* most calls first */
		for (j = i; j > 0 && r->by_prog[order[j]] > r->by_prog[order[j - 1]]; j--) {
			unsigned t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		const char *name = order[i] == LP_PROGS ? "others" : l->progs[order[i]];
		fputs(i ? ", " : ": ", f);
		if (n == 1) {
			fputs(name, f);
			break;
		}
		fprintf(f, "%s %u", name, r->by_prog[order[i]]);
		if (++shown == 6 && i + 1 < n) {
			unsigned long long rest = 0;
			for (j = i + 1; j < n; j++)
				rest += r->by_prog[order[j]];
			fprintf(f, ", others %llu", rest);
			break;
		}
	}
}

static void write_rule(FILE *f, const struct learned *l, unsigned nr, const char *rhs)
{
	const struct sf_syscall *sc = sf_syscall_by_nr(nr);
	const struct lrule *r = &l->r[nr];
	const struct family *fam = family_of(l, nr);
	int w = fprintf(f, "sys_%s: %s", sc->name, rhs);

	if (!r->calls && !fam) {
		fputc('\n', f);
		return;
	}
	fprintf(f, "%*s", w < 44 ? 44 - w : 2, "");
	if (!r->calls)
		fprintf(f, TIMING_COMMENT "%s", fam->where);
	else
		learned_count_comment(f, l, r);
	fputc('\n', f);
}

static int group_of(unsigned nr)
{
	unsigned g, i;

	for (g = 0; g < NGROUPS; g++) {
		const struct sf_group *grp = sf_group_lookup(group_order[g], strlen(group_order[g]));
		for (i = 0; grp && i < grp->count; i++)
			if (grp->nrs[i] == nr)
				return (int)g;
	}
	return (int)NGROUPS;
}

static const char *mode_name(enum sf_argmode m)
{
	return m == SF_ARGS_NONE ? "none" : m == SF_ARGS_STRICT ? "strict" : "auto";
}

static void write_header(FILE *f, const struct learned *l, uint64_t total, unsigned kinds)
{
	char date[64];
	time_t now = time(NULL);
	unsigned i, n = 0, runs = l->runs ? l->runs : 1;

	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %z", localtime(&now));
	fprintf(f, "# Learned by secfilter learn %s on %s from %u run%s:\n", SECFILTER_VERSION,
		date, runs, runs == 1 ? "" : "s");
	for (i = 0; i < l->ncommands; i++)
		fprintf(f, "#   %s\n", l->commands[i]);
	fprintf(f, "# %llu system calls of %u kinds", (unsigned long long)total, kinds);
	for (i = 0; i < l->nprogs && n < 8; i++, n++)
		fprintf(f, "%s%s", i ? ", " : ", by ", l->progs[i]);
	fprintf(f, "%s.\n", l->nprogs > 8 ? ", ..." : "");
	fprintf(f, "# Arguments filtered: --args=%s.  It allows what the runs did, the dynamic\n"
		   "# loader's calls included (trusted mode checks them); review it, and\n"
		   "# add runs with: secfilter learn --merge FILE -- PROG [ARG...]\n",
		mode_name(l->mode));
}

/* The fs. and net. lines of the union (learnfs.h; the ports as they are),
 * in canonical form (malloc'd), or NULL after saying why. */
static char *files_text(const struct learned *l, int with_fs, int with_net)
{
	struct fs_uses rules = { 0 };
	struct sf_policy *p = NULL;
	struct sf_error err;
	char *lines = NULL, *fs = NULL, *out;
	size_t len = 0, n;
	unsigned port;
	FILE *t = open_memstream(&lines, &len);

	if (!t)
		tool_oom();
	if (with_fs && (fs_rules_of(&l->fs, &rules) < 0 || !(fs = fs_rules_text(&rules))))
		tool_oom();
	fputs(fs ? fs : "", t);
	for (port = 0; with_net && port < 65536; port++) {
		if (l->ports[port] & SF_NET_BIND)
			fprintf(t, "net.bind: %u\n", port);
		if (l->ports[port] & SF_NET_CONNECT)
			fprintf(t, "net.connect: %u\n", port);
	}
	if (fclose(t) != 0)
		tool_oom();
	fs_uses_free(&rules);
	free(fs);
	memset(&err, 0, sizeof err);
	if (sf_policy_apply(NULL, "<learned>", lines, len, &p, &err) < 0) {
		tool_err("learn: internal error: the learned files and ports do not parse:\n%s",
			 err.text);
		free(lines);
		return NULL;
	}
	free(lines);
	n = sf_landlock_print(p->landlock, NULL, 0);
	out = xmalloc(n + 1);
	sf_landlock_print(p->landlock, out, n + 1);
	sf_policy_free(p);
	return out;
}

static int any_port(const struct learned *l)
{
	unsigned port;

	for (port = 0; port < 65536; port++)
		if (l->ports[port])
			return 1;
	return 0;
}

/* The section of files and ports: the rules, or why there are none.
 * -1 after saying why (an internal error). */
static int write_files(FILE *f, const struct learned *l)
{
	int with_fs = l->fs_said && !l->fs_free, with_net = !l->net_free && any_port(l);
	char *text;

	if (!l->fs_said && !any_port(l))
		return 0; /* no run, and no policy that restricts files */
	fputs("\n# Files and ports (fs., net.: Landlock, see secfilter(7)): what the runs\n"
	      "# used and the merged policies grant.  Reads beneath the system's\n"
	      "# directories (/usr, /lib, /etc, /proc, ...) are granted on those\n"
	      "# directories; what a run made, in the directory it was made in;\n"
	      "# programs by path.\n", f);
	if (l->fs_free)
		fprintf(f, "# Files: not restricted, since %s restricts none and this is a union.\n",
			l->fs_free);
	if (l->net_free && any_port(l))
		fprintf(f, "# TCP ports: not restricted, since %s restricts none and this is a "
			"union.\n", l->net_free);
	else if (!l->net_free && !any_port(l))
		fputs(NO_PORTS_COMMENT "; no net. rules (the socket\n"
		      "# rules above decide).\n", f);
	if (!with_fs && !with_net)
		return 0;
	if (!(text = files_text(l, with_fs, with_net)))
		return -1;
	fputs(text, f);
	free(text);
	return 0;
}

char *learned_policy(const struct learned *l, size_t *len)
{
	char *rules[SF_NR_COUNT] = { 0 };
	uint64_t total = 0;
	unsigned kinds = 0, nr, g;
	char *buf = NULL;
	FILE *f;
	struct sf_policy *p = NULL;
	struct sf_error err;

	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		if (!sf_syscall_by_nr(nr))
			continue;
		/* timing may also pick other arguments (futex's ops) */
		rules[nr] = family_of(l, nr) ? xstrdup("1") : rule_of(l, nr);
		if (rules[nr] && l->r[nr].calls) {
			total += l->r[nr].calls;
			kinds++;
		}
	}
	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	write_header(f, l, total, kinds);
	if (l->pending)
		fputs("\non_next_syscall: 1\n", f);
	if (l->dflt) {
		char ebuf[32];
		fprintf(f, "\ndefault: %s\n", action_name(l->dflt, ebuf, sizeof ebuf));
	}
	for (g = 0; g <= NGROUPS; g++) {
		int title = 0;
		for (nr = 0; nr < SF_NR_COUNT; nr++) {
			if (!rules[nr] || group_of(nr) != (int)g)
				continue;
			if (!title++) {
				const struct sf_group *grp = g < NGROUPS ?
					sf_group_lookup(group_order[g], strlen(group_order[g])) : NULL;
				if (grp)
					fprintf(f, "\n# %s: %s\n", grp->name, grp->about);
				else
					fputs("\n# in none of systemd's groups\n", f);
			}
			write_rule(f, l, nr, rules[nr]);
		}
	}
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		if (l->unknown[nr])
			fprintf(f, "# %u: %llu call%s -- not in secfilter's syscall table\n", nr,
				(unsigned long long)l->unknown[nr], l->unknown[nr] == 1 ? "" : "s");
		free(rules[nr]);
	}
	if (l->foreign)
		fprintf(f, "# %llu calls through another ABI (i386 or x32) cannot be allowed\n",
			(unsigned long long)l->foreign);
	if (write_files(f, l) < 0) {
		fclose(f);
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	memset(&err, 0, sizeof err);
	if (sf_policy_apply(NULL, "<learned>", buf, *len, &p, &err) < 0) {
		tool_err("learn: internal error: the learned policy does not parse:\n%s", err.text);
		free(buf);
		errno = EINVAL;
		return NULL;
	}
	sf_policy_free(p);
	return buf;
}
