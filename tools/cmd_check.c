/* secfilter check [-q] FILE...: parse each policy and print its canonical
 * form.  Every file is checked, so one run reports every broken file. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "secfilter.h"

static const char usage[] =
	"Usage: secfilter check [-q] FILE...\n"
	"Validate each policy FILE ('-' is standard input) and print it in\n"
	"canonical form, under a '# FILE' header when there are several.\n\n"
	"  -q, --quiet   do not print the policies (errors are still reported)\n"
	"  -h, --help    show this help\n"
	"  -V, --version print the version\n\n"
	"Exit status: 0 all valid, 1 some file invalid or unreadable, 2 usage.\n";

/* Returns the file's status: 0 valid, or what policy_in_* returned. */
static int check_one(const char *file, int quiet, int header)
{
	struct policy_in in;
	struct sf_policy *p;
	int r;

	r = policy_in_load(&in, "check", file, NULL);
	if (r)
		return r;
	r = policy_in_parse(&in, &p);
	if (r == 0) {
		if (!quiet) {
			size_t len;
			char *text = policy_text(p, &len);
			if (header)
				printf("# %s\n", file);
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
		{ "quiet", no_argument, NULL, 'q' },
		TOOL_COMMON_LONGOPTS,
	};
	int quiet = 0, worst = 0, o, i, nfiles, stdin_seen = 0;

	while ((o = getopt_long(argc, argv, ":qhV", opts, NULL)) != -1) {
		switch (o) {
		case 'q':
			quiet = 1;
			break;
		default:
			return tool_common_option("check", o, argv, usage);
		}
	}
	nfiles = argc - optind;
	if (nfiles <= 0)
		return tool_usage_err("check", "check: no FILE given");
	for (i = optind; i < argc; i++)
		if (strcmp(argv[i], "-") == 0 && stdin_seen++)
			return tool_usage_err("check", "check: '-' given twice");
	for (i = optind; i < argc; i++) {
		int r = check_one(argv[i], quiet, nfiles > 1);
		/* A failure of secfilter itself outranks an invalid policy. */
		if (r > worst)
			worst = r;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		tool_perr("check: standard output");
		return EX_SF_FAIL;
	}
	return worst;
}
