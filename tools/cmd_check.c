/* secfilter check [-q] [-e TEXT]... [FILE...]: parse each policy and print
 * its canonical form.  Every one is checked, so one run reports every
 * broken file. */
#include <errno.h>
#include <getopt.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>

#include "bpf.h"
#include "secfilter.h"
#include "sflandlock.h"

static const char usage[] =
	"Usage: secfilter check [-q] [--syntax=secfilter|minijail|oci] [-e TEXT | FILE]...\n"
	"Validate each policy FILE ('-' is standard input) and each TEXT, and\n"
	"print it in canonical form, under a '# FILE' header when there are\n"
	"several (TEXTs first, in order, named <command-line>).\n\n"
	"  -e, --expr=TEXT  a policy given as text: 'read: fd == 0; exit_group: 1'\n"
	"  -q, --quiet      do not print the policies (errors and warnings are still\n"
	"                   reported)\n"
	"      --syntax=SYNTAX  secfilter, minijail (a minijail .policy file) or oci\n"
	"                   (an OCI/Docker seccomp profile); by default a FILE's name\n"
	"                   says: .policy minijail, .json oci, else secfilter\n"
	"  -h, --help       show this help\n"
	"  -V, --version    print the version\n\n"
	"Every error of a file is reported (up to 20), and warnings: a policy that\n"
	"parses but likely does not do what it says.\n\n"
	"Exit status: 0 all valid (warnings or not), 1 some file invalid or\n"
	"unreadable, 2 usage.\n";

/* A policy the kernel cannot take: what `compile` and `run --trusted`
 * would refuse, said before they are tried. */
static void warn_kernel_size(const struct policy_in *in, const struct sf_policy *p)
{
	struct sock_filter *prog = xmalloc(SF_BPF_MAX * sizeof(*prog));
	struct sf_error err;
	unsigned len = 0;

	memset(&err, 0, sizeof(err));
	if (sf_bpf_compile(p, SECCOMP_RET_KILL_PROCESS, prog, SF_BPF_MAX, &len, &err) == -E2BIG)
		fprintf(stderr, "%s: warning: the policy compiles to more than %u BPF instructions, "
			"the kernel's limit: `secfilter compile` and `run --trusted` refuse it "
			"(the library's `run` enforces it)\n", in->source, SF_BPF_MAX);
	free(prog);
}

/* Checks a FILE or, file NULL, a TEXT.  Returns its status: 0 valid, or
 * what policy_in_* returned. */
static int check_one(const char *file, const char *expr, int quiet, int header, int syntax)
{
	struct policy_in in;
	struct sf_policy *p;
	int r;

	r = policy_in_load(&in, "check", file, expr, syntax);
	if (r)
		return r;
	r = policy_in_parse(&in, &p);
	if (r == 0) {
		warn_kernel_size(&in, p);
		landlock_warn_missing(p);
		if (!quiet) {
			size_t len;
			char *text = policy_text(p, &len);
			if (header)
				printf("# %s\n", in.source);
			fwrite(text, 1, len, stdout);
			if (len && text[len - 1] != '\n')
				putchar('\n');
			free(text);
		}
		sf_policy_free(p);
	}
	policy_in_free(&in);
	return r;
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "expr", required_argument, NULL, 'e' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "syntax", required_argument, NULL, 'S' },
		TOOL_COMMON_LONGOPTS,
	};
	int quiet = 0, worst = 0, o, i, n, nexprs = 0, stdin_seen = 0, syntax = SYNTAX_BY_NAME;
	const char **exprs = xmalloc((size_t)argc * sizeof(*exprs));

	while ((o = getopt_long(argc, argv, ":e:qhV", opts, NULL)) != -1) {
		switch (o) {
		case 'e':
			exprs[nexprs++] = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'S':
			syntax = syntax_by_name(optarg);
			if (syntax < 0) {
				free(exprs);
				return tool_usage_err("check", "check: unknown syntax '%s' (secfilter, "
						      "minijail or oci)", optarg);
			}
			break;
		default:
			free(exprs);
			return tool_common_option("check", o, argv, usage);
		}
	}
	n = nexprs + argc - optind;
	for (i = optind; i < argc; i++)
		if (strcmp(argv[i], "-") == 0 && stdin_seen++)
			worst = tool_usage_err("check", "check: '-' given twice");
	if (n <= 0)
		worst = tool_usage_err("check", "check: no FILE or -e TEXT given");
	for (i = 0; i < nexprs + argc - optind && worst != EX_SF_USAGE; i++) {
		int r = i < nexprs ? check_one(NULL, exprs[i], quiet, n > 1, syntax)
				   : check_one(argv[optind + i - nexprs], NULL, quiet, n > 1, syntax);
		/* A failure of secfilter itself outranks an invalid policy. */
		if (r > worst)
			worst = r;
	}
	free(exprs);
	if (worst == EX_SF_USAGE)
		return worst;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		tool_perr("check: standard output");
		return EX_SF_FAIL;
	}
	return worst;
}
