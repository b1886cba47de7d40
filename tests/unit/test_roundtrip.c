/* Canonical printing: parse(print(p)) is p, for a corpus that includes every
 * example of the 2011 proposal (../shared/seeds) and randomly generated
 * policies.  "Is p" is checked two ways: the re-printed text is identical,
 * and both blocks decide alike on a set of argument vectors.  The short
 * form (what exec'd images get) parses to p as well. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "decode.h"
#include "eval.h"
#include "internal.h"
#include "landlock.h"
#include "tsupport.h"

static const char *const corpus[] = {
	/* the proposal's documentation (seed 004) */
	"sys_read: (fd == 1) || (fd == 2)\n"
	"sys_write: (fd == 0)\n"
	"sys_exit: 1\n"
	"sys_exit_group: 1\n"
	"on_next_syscall: 1",
	"sys_read: 1\nsys_write: 1\nsys_mmap: 1\nsys_prctl: 1\n",
	"sys_read: 1\nsys_write: 1\nsys_mmap: 1\nsys_prctl: 1\nsys_mmap: 0",
	/* the proposal's cover letter (seed 002) */
	"  sys_read: fd == 0\n  sys_write: fd == 1\n  sys_exit_group: 1\n",
	/* the SPEC's examples */
	"read: fd == 0; write: fd == 1 || fd == 2; exit_group: 1",
	"*: 1\nptrace: 0",
	"openat: dfd == AT_FDCWD && flags & O_WRONLY|O_CREAT",
	/* every operator, negative and large values, all six argument types */
	"lseek: offset < -1 || offset <= 0x7fffffffffffffff && whence >= 2",
	"mmap: !(prot & PROT_EXEC) && (flags & MAP_SHARED || fd == -1)\nmmap: len > 4096",
	"openat: mode == 0644 || !!(mode != 0600)",
	"kill: pid > 0 && sig != SIGKILL; kill: sig <= 31",
	"read: buf == 0xffffffffffffffff || count & 0x8000000000000000",
	"read: ((fd == 1) && ((count < 10))) || (fd == 2 && (count < 20 || count > 30))",
	"0: 1; 1: arg0 == 3; 60: 1",
	"on_next_syscall: 1",
	"",
	/* language v2: actions, in, groups */
	"default: return EPERM; clone3: return ENOSYS; read: fd == 0 else return EBADF",
	"default: trap; write: fd in 3; mprotect: prot in ~PROT_EXEC; close: fd in 0x80000000",
	"default: log; @network-io: return EACCES; @file-system: 1; @privileged: 0",
	"*: return 4095; read: 1; write: count < 10 else return EWOULDBLOCK",
	"kill: sig in ~0 || pid in 0x7fffffff; fchmod: mode in ~0644",
	"on_next_syscall: 1; default: return 200; getpid: return EDEADLOCK",
	/* the short form's cases: most allowed, some removed, filters, actions */
	"*: 1",
	"on_next_syscall: 1\n*: 1\nio_uring_setup: 1\nptrace: 0\nwrite: fd == 1\nwrite: count < 10\n"
	"read: fd == 0",
	"*: 1\n*: 0\nread: 1",
	"default: return EPERM\n*: 1\nio_uring_setup: 1\nptrace: 0\nclone3: return ENOSYS\n"
	"read: fd == 0 else return EBADF",
	/* io_uring_setup named and allowed: the short form names it again */
	"*: 1\nio_uring_setup: 1\nopenat: !(flags & O_CREAT)",
	/* language v3: files and ports, every right, every path form */
	"fs.read: /usr /lib /etc\nfs.write: /tmp/out\nfs.exec: /usr/bin\nnet.connect: 443 5432",
	"fs.execute: /1; fs.write_file: /2; fs.read_file: /3; fs.read_dir: /4; fs.remove_dir: /5\n"
	"fs.remove_file: /6; fs.make_char: /7; fs.make_dir: /8; fs.make_reg: /9\n"
	"fs.make_sock: /10; fs.make_fifo: /11; fs.make_block: /12; fs.make_sym: /13\n"
	"fs.refer: /14; fs.truncate: /15; fs.ioctl_dev: /16; net.bind: 0; net.connect: 65535",
	"fs.read: \"/tmp/a b\" \"/x;y\" \"/h#i\" \"/t\tab\" /plain /q\"uote",
	"fs.read: /usr; fs.exec: /usr; fs.read_file: /etc; fs.write: /w; fs.refer: /w",
	"*: 1\nptrace: 0\nfs.read: /\nnet.bind: 0 65535 80\nnet.connect: 80",
	"read: fd == 0\nfs.read: /usr\nlandlock.layer: 1\nfs.read: /usr/bin\nnet.bind: 80\n"
	"landlock.layer: 1\nlandlock.layer: 1\nnet.connect: 443",
};

/* The short form, parsed under another source's name, given p's origin
 * map: each filter is where p's was written again (line, source, text),
 * and the policy is still p (the block's copy reads alike). */
static void check_origins(const struct sf_policy *p, const char *shorter, size_t n,
			  const char *canonical)
{
	size_t len = sf_policy_print_origins(p, NULL, 0);
	char *map = malloc(len + 1);
	struct sf_policy *r;
	struct sf_error err;
	uint32_t k;

	assert_non_null(map);
	assert_int_equal(sf_policy_print_origins(p, map, len + 1), len);
	assert_int_equal(sf_policy_apply(NULL, "SHORT", shorter, n, &r, &err), 0);
	assert_int_equal(r->nfilters, p->nfilters);
	assert_int_equal(len == 0, p->nfilters == 0 && !p->landlock);
	assert_int_equal(sf_policy_set_origins(&r, map), 0);
	assert_int_equal(!r->landlock, !p->landlock);
	for (k = 0; p->landlock && k < p->landlock->nrules; k++) {
		const struct sf_ll_rule *a = &p->landlock->rules[k], *b = &r->landlock->rules[k];
		assert_int_equal(b->line, a->line);
		assert_string_equal(r->landlock->strings + b->source, p->landlock->strings + a->source);
		assert_int_equal(b->layer, a->layer);
		assert_int_equal(b->net, a->net);
		assert_true(a->net ? b->port == a->port
				   : !strcmp(r->landlock->strings + b->path, p->landlock->strings + a->path));
		assert_int_equal(b->access, a->access);
	}
	for (k = 0; k < p->nfilters; k++) {
		const char *want = sf_filter_text(p, &p->filters[k]);
		const char *got = sf_filter_text(r, &r->filters[k]);
		assert_int_equal(r->filters[k].line, p->filters[k].line);
		assert_string_equal(sf_filter_source(r, &r->filters[k]),
				    sf_filter_source(p, &p->filters[k]));
		assert_true(!want == !got);
		if (want)
			assert_string_equal(got, want);
	}
	assert_string_equal(t_print(r), canonical);
	/* one entry too many, or too few: refused, r unchanged */
	map = realloc(map, len + 8);
	assert_non_null(map);
	strcpy(map + len, "1@1:x-");
	assert_int_equal(sf_policy_set_origins(&r, map), -EINVAL);
	if (len)
		assert_int_equal(sf_policy_set_origins(&r, ""), -EINVAL);
	assert_string_equal(t_print(r), canonical);
	free(map);
	sf_policy_free(r);
}

/* Landlock rules of two sources (a file and the one it includes) in two
 * layers: the map gives each rule of the exec'd image's block its line
 * and source, in the block's order, and the report of a denial cites them
 * -- only what it cites: a map that does not fit is refused. */
static void landlock_origins_of_two_sources_and_layers(void **state)
{
	char dir[] = "/tmp/secfilter-llo-XXXXXX", main[64], inc[64], want[512];
	char map[512], shorter[1024], report[1024];
	struct sf_ll_denial wr = { .comm = "cp", .pid = 1, .nr = 257, .path = "/tmp/w/x",
				   .at_len = 6, .right = SF_FS_MAKE_REG, .port = 0 };
	struct sf_ll_denial conn = { .comm = "nc", .pid = 1, .nr = 42, .right = SF_NET_CONNECT,
				     .port = 8080 };
	struct sf_out o = { report, sizeof report, 0 };
	struct sf_policy *p, *r;
	struct sf_error err;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(main, sizeof main, "%s/main.conf", dir);
	snprintf(inc, sizeof inc, "%s/inc.conf", dir);
	f = fopen(inc, "w");
	assert_non_null(f);
	fputs("# included\nfs.read: /usr /etc\nnet.connect: 443\n", f);
	fclose(f);
	p = t_parse_syntax(SF_SYNTAX_SECFILTER, main,
			   "read: fd == 0\n"
			   "fs.write: /tmp/w\n"
			   "@include inc.conf\n"
			   "landlock.layer: 1\n"
			   "fs.read: /usr\n"
			   "net.connect: 443 80\n"
			   "fs.exec: /etc\n"
			   "write: fd == 1\n",
			   &err);
	assert_non_null(p);
	assert_int_equal(p->landlock->nlayers, 2);
	/* the filters, then layer 0: /etc /tmp/w /usr 443, layer 1: /etc
	 * /usr 80 443 */
	snprintf(want, sizeof want,
		 "1@%zu:%s=7:fd == 0" "8=7:fd == 1"
		 "2@%zu:%s-" "2@%zu:%s-" "2@%zu:%s-" "3-"
		 "7@%zu:%s-" "5-6-6-",
		 strlen(main), main, strlen(inc), inc, strlen(main), main, strlen(inc), inc,
		 strlen(main), main);
	assert_true(sf_policy_print_origins(p, map, sizeof map) < sizeof map);
	assert_string_equal(map, want);
	assert_true(sf_policy_print_short(p, shorter, sizeof shorter) < sizeof shorter);
	r = t_parse(NULL, shorter);
	assert_int_equal(sf_policy_set_origins(&r, map), 0);
	assert_string_equal(t_print(r), t_print(p));

	/* a file made in /tmp/w: layer 0 grants it, layer 1 (no fs.write)
	 * denies it, citing its first rule, /etc at main.conf:7 */
	assert_int_equal(sf_ll_report(&o, r->landlock, &wr), 1);
	sf_out_end(&o);
	snprintf(want, sizeof want,
		 "    rule: no fs.write rule, and the fs. rules (%s:7) deny what none grants\n",
		 main);
	assert_non_null(strstr(report, want));
	/* port 8080: layer 0, whose connect rule is inc.conf's, line 3 */
	o.len = 0;
	assert_int_equal(sf_ll_report(&o, r->landlock, &conn), 1);
	sf_out_end(&o);
	snprintf(want, sizeof want, "    rule: net.connect (%s:3) does not grant it here\n", inc);
	assert_non_null(strstr(report, want));

	/* a text on a Landlock rule, one entry short: refused, r unchanged */
	strcpy(map + strlen(map) - 1, "=1:x");
	assert_int_equal(sf_policy_set_origins(&r, map), -EINVAL);
	map[strlen(map) - 5] = '\0';
	assert_int_equal(sf_policy_set_origins(&r, map), -EINVAL);
	assert_int_equal(r->landlock->rules[r->landlock->nrules - 1].line, 6);
	sf_policy_free(r);
	sf_policy_free(p);
	unlink(inc);
	rmdir(dir);
}

static void check_round_trip(const char *text)
{
	struct sf_policy *p = t_parse(NULL, text);
	char *once = strdup(t_print(p));
	struct sf_policy *q = t_parse(NULL, once);
	unsigned nr, v;

	static char shorter[1 << 16];
	struct sf_policy *r;
	size_t n = sf_policy_print_short(p, shorter, sizeof(shorter));

	if (strcmp(once, t_print(q)) != 0)
		fail_msg("round trip changed the text\nsource:\n%s\nprinted:\n%s\nreprinted:\n%s",
			 text, once, t_print(q));
	assert_true(n < sizeof(shorter));
	assert_true(n <= sf_policy_print_plain(p, NULL, 0));
	r = t_parse(NULL, shorter);
	if (strcmp(once, t_print(r)) != 0 || r->pending != p->pending || r->dflt != p->dflt)
		fail_msg("the short form is another policy\nsource:\n%s\nshort:\n%s\nreprinted:\n%s",
			 text, shorter, t_print(r));
	/* a word on io_uring_setup holds in the exec'd image's narrowings
	 * (where it is not allowed, there is no word to keep) */
	assert_true(!p->uring_named || r->uring_named ||
		    !p->sys[sf_syscall_lookup("io_uring_setup", 14)->nr].allowed);
	sf_policy_free(r);
	check_origins(p, shorter, n, once);
	assert_int_equal(p->pending, q->pending);
	assert_int_equal(p->dflt, q->dflt);
	for (nr = 0; nr < SF_NR_COUNT; nr++) {
		for (v = 0; v < 64; v++) {
			static const uint64_t vals[] = {
				0, 1, 2, 3, 10, 20, 31, 4096, 4097, 0x40, 0x41, 0644,
				(uint64_t)-1, (uint64_t)-100, 0x7fffffffffffffffull,
				0x8000000000000000ull, 0x100000001ull, 0xffffffffull,
			};
			uint64_t a[6];
			unsigned k;
			for (k = 0; k < 6; k++)
				a[k] = vals[(v * 7 + k * 5 + nr) % (sizeof(vals) / sizeof(vals[0]))];
			assert_int_equal(sf_action(p, nr, sf_decide(p, nr, a)),
					 sf_action(q, nr, sf_decide(q, nr, a)));
		}
	}
	free(once);
	sf_policy_free(q);
	sf_policy_free(p);
}

static void corpus_round_trips(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++)
		check_round_trip(corpus[i]);
}

static void seed_example_prints_canonically(void **state)
{
	struct sf_policy *p = t_parse(NULL, corpus[0]);

	(void)state;
	assert_string_equal(t_print(p),
		"on_next_syscall: 1\n"
		"sys_read: fd in {1, 2}\n"
		"sys_write: fd == 0\n"
		"sys_exit: 1\n"
		"sys_exit_group: 1\n");
	sf_policy_free(p);
}

static void actions_print_canonically(void **state)
{
	struct sf_policy *p = t_parse(NULL,
		"getpid: return EDEADLOCK; default: return EWOULDBLOCK; read: fd == 0 else return 200;"
		" mprotect: prot in ~PROT_EXEC; close: fd in 0x80000000; kill: sig in -1;"
		" fchmod: mode in 0xff00; write: return 4095; write: count < 3");

	(void)state;
	assert_string_equal(t_print(p),
		"default: return EAGAIN\n"
		"sys_read: fd == 0 else return 200\n"
		"sys_write: count < 3\n"
		"sys_close: fd in 0x80000000\n"
		"sys_mprotect: prot in ~PROT_EXEC\n"
		"sys_getpid: return EDEADLK\n"
		"sys_kill: sig in ~0x0\n"
		"sys_fchmod: mode in 0177400\n");
	sf_policy_free(p);
}

static void random_policies_round_trip(void **state)
{
	static char text[1 << 16];
	uint64_t rng = 0x5ecf11e2;
	unsigned round;

	(void)state;
	for (round = 0; round < 300; round++) {
		t_random_policy(text, sizeof(text), &rng, 12);
		check_round_trip(text);
	}
	/* The same after "*: 1": the short form's other branch. */
	for (round = 0; round < 300; round++) {
		memcpy(text, "*: 1\n", 5);
		t_random_policy(text + 5, sizeof(text) - 5, &rng, 12);
		check_round_trip(text);
	}
}

/* A value to test argument d with: one of its set's constants, two of
 * them ORed, AT_FDCWD, a small number or random bits. */
static uint64_t family_value(const struct sf_argdesc *d, uint64_t *rng)
{
	const struct sf_cset *s = &sf_csets[d->set];
	const int has_set = d->kind == SF_AK_ENUM || d->kind == SF_AK_FLAGS;
	uint64_t r = t_rnd(rng);

	switch (r % 6) {
	case 0:
	case 1:
		if (has_set && s->count)
			return sf_consts[sf_cset_items[s->first + t_rnd(rng) % s->count]].value;
		return r % 8;
	case 2:
		if (has_set && s->count)
			return sf_consts[sf_cset_items[s->first + t_rnd(rng) % s->count]].value |
			       sf_consts[sf_cset_items[s->first + t_rnd(rng) % s->count]].value;
		return 0644;
	case 3:
		return (uint64_t)-100; /* AT_FDCWD */
	case 4:
		return t_rnd(rng) % 70000;
	default:
		return t_rnd(rng);
	}
}

/* Every argument args.tbl gives names to (enum, flags, dirfd, mode), with
 * every operator and values of its family and others: the canonical text
 * writes them by name where it can, and parses back to the same policy. */
static void named_values_round_trip(void **state)
{
	static const char *const ops[] = { "==", "!=", "&", "in", "<" };
	uint64_t rng = 0x6e616d6573;
	unsigned k, v, o, named = 0;

	(void)state;
	for (k = 0; k < sf_argdesc_count; k++) {
		const struct sf_argdesc *d = &sf_argdescs[k];
		const struct sf_syscall *sc = sf_syscall_by_nr(d->nr);
		uint64_t width;

		if (d->kind != SF_AK_ENUM && d->kind != SF_AK_FLAGS && d->kind != SF_AK_DIRFD &&
		    d->kind != SF_AK_MODE)
			continue;
		assert_non_null(sc);
		assert_true(d->arg < sc->nargs);
		width = sc->args[d->arg].type == SF_T_U16 ? 0xffff
			: sc->args[d->arg].type <= SF_T_U32 ? 0xffffffffull : ~0ull;
		for (v = 0; v < 8; v++) {
			uint64_t value = family_value(d, &rng) & width;
			for (o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
				char text[256];
				const char *eq;
				struct sf_policy *p;
				snprintf(text, sizeof text, "%s: %s %s 0x%llx", sc->name,
					 sc->args[d->arg].name, ops[o], (unsigned long long)value);
				check_round_trip(text);
				/* == of a value with a name is written with it */
				p = t_parse(NULL, text);
				eq = strstr(t_print(p), " == ");
				if (eq && (eq[4] < '0' || eq[4] > '9') && eq[4] != '-')
					named++;
				sf_policy_free(p);
			}
		}
	}
	/* most of the == tests of family values were named */
	assert_true(named > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(corpus_round_trips),
		cmocka_unit_test(seed_example_prints_canonically),
		cmocka_unit_test(actions_print_canonically),
		cmocka_unit_test(random_policies_round_trip),
		cmocka_unit_test(named_values_round_trip),
		cmocka_unit_test(landlock_origins_of_two_sources_and_layers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
