/* The report of a denial by Landlock (landlock.h, struct sf_ll_denial):
 * one text, written by whoever saw the denial -- the library from the
 * call's result (preload/report/llreport.c), `secfilter run` from the
 * kernel's audit record (tools/llaudit.c).  What a way of seeing it does
 * not know is said as unknown ("?", "a call"), the rest is the same.
 *
 * Like the rest of filter/: no libc I/O, no allocation. */
#include <string.h>

#include "internal.h"
#include "landlock.h"
#include "systab.h"

/* Whether path's first n bytes lie beneath rule (a path of the policy). */
static int beneath(const char *path, size_t n, const char *rule)
{
	size_t r = strlen(rule);

	if (r == 1 && rule[0] == '/')
		return 1;
	return r <= n && memcmp(path, rule, r) == 0 && (r == n || path[r] == '/');
}

int sf_ll_denier(const struct sf_landlock *ll, uint64_t right, const char *path, size_t n,
		 int port, const struct sf_ll_rule **rule)
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
			    (net ? r->port == port : beneath(path, n, ll->strings + r->path)))
				granted = 1;
		}
		if (!granted && *rule)
			return (int)layer;
	}
	return -1;
}

/* The language's broadest right that grants this one ("fs.write"). */
static const char *broadest(uint64_t right, int net)
{
	unsigned i;

	for (i = 0; i < sf_ll_right_count; i++)
		if (sf_ll_rights[i].net == net && (sf_ll_rights[i].access & right))
			return sf_ll_rights[i].name;
	return "?";
}

static void put_fix(struct sf_out *o, const struct sf_ll_denial *d)
{
	sf_out_str(o, broadest(d->right, !d->path));
	sf_out_str(o, ": ");
	if (d->path)
		sf_out_mem(o, d->path, d->at_len);
	else
		sf_out_digits(o, (uint64_t)d->port, 10);
	if (d->more) {
		sf_out_str(o, " ");
		sf_out_str(o, d->more);
	}
}

/* "fs.write (p.conf:4)" */
static void put_rule(struct sf_out *o, const char *what, const struct sf_landlock *ll,
		     const struct sf_ll_rule *rule)
{
	sf_out_str(o, what);
	sf_out_str(o, " (");
	sf_out_str(o, ll->strings + rule->source);
	sf_out_str(o, ":");
	sf_out_digits(o, rule->line, 10);
	sf_out_str(o, ")");
}

int sf_ll_report(struct sf_out *o, const struct sf_landlock *ll, const struct sf_ll_denial *d)
{
	const struct sf_syscall *sc = d->nr >= 0 ? sf_syscall_by_nr(d->nr) : NULL;
	const struct sf_ll_rule *rule = NULL;

	if (!ll || sf_ll_denier(ll, d->right, d->path, d->at_len, d->port, &rule) < 0)
		return 0;
	sf_out_str(o, d->comm ? d->comm : "?");
	sf_out_str(o, "[");
	if (d->pid > 0)
		sf_out_digits(o, (uint64_t)d->pid, 10);
	else
		sf_out_str(o, "?");
	sf_out_str(o, "]: ");
	sf_out_str(o, sc ? sc->name : "a call");
	sf_out_str(o, " denied by Landlock: ");
	if (!d->path) {
		sf_out_str(o, "TCP port ");
		sf_out_digits(o, (uint64_t)d->port, 10);
	} else if (d->given) {
		sf_out_str(o, "\"");
		sf_out_str(o, d->given);
		sf_out_str(o, "\"");
		if (strcmp(d->given, d->path) != 0) { /* relative, or through a link */
			sf_out_str(o, " (");
			sf_out_str(o, d->path);
			sf_out_str(o, ")");
		}
	} else {
		sf_out_str(o, d->path); /* as the kernel names it */
	}
	if (d->path && d->exec) {
		sf_out_str(o, ", the interpreter of \"");
		sf_out_str(o, d->exec);
		sf_out_str(o, "\",");
	}
	if (d->path) {
		sf_out_str(o, " needs ");
		sf_out_str(o, sf_ll_right_name(d->right, 0));
	}
	sf_out_str(o, "\n    rule: ");
	if (rule->access & d->right) { /* a rule grants it, elsewhere */
		put_rule(o, broadest(d->right, !d->path), ll, rule);
		sf_out_str(o, " does not grant it here");
	} else { /* no rule grants it: the layer's first rule made it denied */
		sf_out_str(o, "no ");
		sf_out_str(o, broadest(d->right, !d->path));
		sf_out_str(o, " rule, and ");
		put_rule(o, d->path ? "the fs. rules" : "the net. rules", ll, rule);
		sf_out_str(o, " deny what none grants");
	}
	sf_out_str(o, "\n    add: ");
	put_fix(o, d);
	sf_out_str(o, "\n");
	return 1;
}

int sf_ll_fix(struct sf_out *o, const struct sf_landlock *ll, const struct sf_ll_denial *d)
{
	const struct sf_ll_rule *rule;

	if (!ll || sf_ll_denier(ll, d->right, d->path, d->at_len, d->port, &rule) < 0)
		return 0;
	put_fix(o, d);
	return 1;
}

uint64_t sf_ll_right_of(const char *name, size_t n, int *net)
{
	static const struct {
		const char *kernel;
		uint64_t right;
	} tcp[] = { { "net.bind_tcp", SF_NET_BIND }, { "net.connect_tcp", SF_NET_CONNECT } };
	unsigned i;

	for (i = 0; i < sizeof tcp / sizeof tcp[0]; i++)
		if (strlen(tcp[i].kernel) == n && memcmp(name, tcp[i].kernel, n) == 0) {
			*net = 1;
			return tcp[i].right;
		}
	for (i = 0; i < sf_ll_right_count; i++) {
		const struct sf_ll_right *r = &sf_ll_rights[i];
		if (!r->net && strlen(r->name) == n && memcmp(name, r->name, n) == 0 &&
		    !(r->access & (r->access - 1))) {
			*net = 0;
			return r->access;
		}
	}
	return 0;
}
